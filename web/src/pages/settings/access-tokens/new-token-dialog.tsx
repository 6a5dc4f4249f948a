import { useState } from 'preact/hooks';
import { createAccessToken, type Scope } from '../../../api';
import { useAction } from '../../../lib/use-resource';
import { currentSession } from '../../../state/session';
import { Alert, Button, Dialog, Field, TextField } from '../../../ui';
import { toggled } from '../../../lib/sets';
import { SecretDialogActions, SecretOnce } from '../secret-once';
import { EXPIRIES, SCOPE_WORDS, SCOPES } from './words';

/** The form, then the secret once. Unmounted on close, so the secret lives no longer than the dialog. */
export function NewTokenDialog({ onClose }: { onClose: () => void }) {
  const session = currentSession();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Set<Scope>>(new Set(['tasks:read']));
  const [days, setDays] = useState<number>(90);
  const { busy, error, run } = useAction<'create'>();
  const [secret, setSecret] = useState<string | null>(null);
  const visibleScopes = SCOPES.filter((scope) => scope !== 'audit:read' || session.role === 'admin');

  function submit(event: SubmitEvent) {
    event.preventDefault();
    void run('create', async () => {
      const created = await createAccessToken(session, { name: name.trim(), scopes: [...scopes], expiresInDays: days });
      setSecret(created.token);
    });
  }

  return (
    <Dialog
      open
      title={secret ? 'Your new token' : 'New access token'}
      onClose={onClose}
      actions={
        <SecretDialogActions secret={secret} onClose={onClose}>
          <Button type="submit" form="new-token" busy={busy === 'create'} disabled={scopes.size === 0 || name.trim() === ''}>
            Make token
          </Button>
        </SecretDialogActions>
      }
    >
      {secret ? (
        <SecretOnce secret={secret} label="Token">
          it is shown only this once, and Bridle keeps only a hash of it.
        </SecretOnce>
      ) : (
        <form id="new-token" class="stack" onSubmit={submit}>
          <Alert message={error} />
          <TextField
            label="Name"
            hint="What it is for, e.g. “Backup script”."
            maxLength={100}
            required
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <fieldset class="plain-fieldset stack">
            <legend>It may</legend>
            {visibleScopes.map((scope) => (
              <label key={scope} class="row consent-scope">
                <input
                  type="checkbox"
                  checked={scopes.has(scope)}
                  onChange={(e) => setScopes(toggled(scopes, scope, e.currentTarget.checked))}
                />
                <span>
                  {SCOPE_WORDS[scope]} <code class="muted">{scope}</code>
                </span>
              </label>
            ))}
          </fieldset>
          <Field label="Expires after">
            {(ids) => (
              <select class="input" value={days} onChange={(e) => setDays(Number(e.currentTarget.value))} {...ids}>
                {EXPIRIES.map((value) => (
                  <option key={value} value={value}>
                    {value === 366 ? 'a year' : `${value} days`}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </form>
      )}
    </Dialog>
  );
}
