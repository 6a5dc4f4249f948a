import { useState } from 'preact/hooks';
import { createWebhook, type WebhookEvent, type WebhookScope } from '../../../api';
import { useAction } from '../../../lib/use-resource';
import { currentSession } from '../../../state/session';
import { Alert, Button, Dialog, TextField } from '../../../ui';
import { toggled } from '../../../lib/sets';
import { SecretDialogActions } from '../secret-once';
import { WebhookSecretOnce } from './webhook-dialogs';
import { EVENT_WORDS, EVENTS } from './words';

/** The form, then the secret once. Unmounted on close, so the secret lives no longer than the dialog. */
export function NewWebhookDialog({ scope, onClose }: { scope: WebhookScope; onClose: () => void }) {
  const session = currentSession();
  const [address, setAddress] = useState('');
  const [description, setDescription] = useState('');
  const [every, setEvery] = useState(true);
  const [events, setEvents] = useState<Set<WebhookEvent>>(new Set(['draft.awaiting_review']));
  const [allPeople, setAllPeople] = useState(false);
  const { busy, error, run } = useAction<'add'>();
  const [secret, setSecret] = useState<string | null>(null);

  function submit(event: SubmitEvent) {
    event.preventDefault();
    void run('add', async () => {
      const created = await createWebhook(session, scope, {
        url: address.trim(),
        description: description.trim(),
        events: every ? null : [...events],
        ...(scope === 'deployment' ? { allPeople } : {}),
      });
      setSecret(created.secret);
    });
  }

  return (
    <Dialog
      open
      title={secret ? 'Your new webhook' : 'New webhook'}
      onClose={onClose}
      actions={
        <SecretDialogActions secret={secret} onClose={onClose}>
          <Button type="submit" form="new-webhook" busy={busy === 'add'} disabled={address.trim() === '' || (!every && events.size === 0)}>
            Add webhook
          </Button>
        </SecretDialogActions>
      }
    >
      {secret ? (
        <WebhookSecretOnce secret={secret} />
      ) : (
        <form id="new-webhook" class="stack" onSubmit={submit}>
          <Alert message={error} />
          <TextField
            label="Address"
            hint="An https address of your receiver. Bridle POSTs each event there, signed (Standard Webhooks)."
            type="url"
            maxLength={2000}
            required
            value={address}
            onInput={(e) => setAddress(e.currentTarget.value)}
          />
          <TextField label="Description" maxLength={200} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
          <fieldset class="plain-fieldset stack">
            <legend>Events</legend>
            <label class="row consent-scope">
              <input type="checkbox" checked={every} onChange={(e) => setEvery(e.currentTarget.checked)} />
              <span>Every event, those added later too</span>
            </label>
            {!every &&
              EVENTS.map((name) => (
                <label key={name} class="row consent-scope">
                  <input
                    type="checkbox"
                    checked={events.has(name)}
                    onChange={(e) => setEvents(toggled(events, name, e.currentTarget.checked))}
                  />
                  <span>
                    {EVENT_WORDS[name]} <code class="muted">{name}</code>
                  </span>
                </label>
              ))}
          </fieldset>
          {scope === 'deployment' && (
            <label class="row consent-scope">
              <input type="checkbox" checked={allPeople} onChange={(e) => setAllPeople(e.currentTarget.checked)} />
              <span>Every person’s events too, not only those for the admins</span>
            </label>
          )}
        </form>
      )}
    </Dialog>
  );
}
