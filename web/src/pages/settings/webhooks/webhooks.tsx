import { useState } from 'preact/hooks';
import { deleteWebhook, listWebhooks, rotateWebhookSecret, updateWebhook, type Webhook, type WebhookScope } from '../../../api';
import { fullTime, timeAgo } from '../../../lib/time';
import { useAction, useResource } from '../../../lib/use-resource';
import { routeParams } from '../../../state/route';
import { currentSession } from '../../../state/session';
import { Alert, Badge, Button, Card, EmptyState, Table, toast } from '../../../ui';
import type { Column } from '../../../ui/table';
import { DeliveryLog } from './delivery-log';
import { NewWebhookDialog } from './new-webhook-dialog';
import { DeleteWebhookDialog, NewSecretDialog } from './webhook-dialogs';
import { OUTCOME_TONE, stateOf } from './words';

/** `caption` names the table's scroll box, a region of its own: not the card's title, so that the two landmarks differ. */
const COPY: Record<WebhookScope, { title: string; caption: string; about: string }> = {
  person: {
    title: 'Webhooks',
    caption: 'Your webhook endpoints',
    about: 'Bridle POSTs what it tells you (a draft to review, a campaign paused…) to your own receivers, in order, each signed.',
  },
  deployment: {
    title: 'Deployment webhooks',
    caption: 'The deployment’s webhook endpoints',
    about: 'For every admin: the events addressed to the admins (a policy stored, a draft escalated), and every person’s when you tick it.',
  },
};

/** A person's webhook endpoints, or the deployment's: their state and last attempt; add, disable or enable, new secret, delete, the log. */
export function Webhooks({ scope }: { scope: WebhookScope }) {
  const session = currentSession();
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [logOf, setLogOf] = useState<Webhook | null>(null);
  const [secret, setSecret] = useState<string | null>(null);

  const {
    data: webhooks,
    error,
    reload,
  } = useResource(async () => {
    const list = await listWebhooks(session, scope);
    // A notice's link (#settings?webhook=<id>) opens that endpoint's log.
    const linked = list.find((webhook) => webhook.id === routeParams.value.get('webhook'));
    if (linked) setLogOf(linked);
    return list;
  }, [session.token, scope]);
  const action = useAction<'change'>();

  const act = (work: () => Promise<unknown>, done: string) =>
    action.run('change', async () => {
      await work();
      toast(done);
      void reload();
    });

  const columns: Column<Webhook>[] = [
    {
      key: 'url',
      header: 'Address',
      cell: (webhook) => (
        <span class="mono" title={webhook.description}>
          {webhook.url}
        </span>
      ),
    },
    { key: 'state', header: 'State', cell: (webhook) => <Badge tone={stateOf(webhook).tone}>{stateOf(webhook).text}</Badge> },
    {
      key: 'last',
      header: 'Last delivery',
      cell: ({ lastAttempt }) =>
        lastAttempt ? (
          <span class="row">
            <Badge tone={OUTCOME_TONE[lastAttempt.outcome]}>{lastAttempt.outcome}</Badge>
            <time title={fullTime(lastAttempt.at)}>{timeAgo(lastAttempt.at)}</time>
          </span>
        ) : (
          <span class="muted">none yet</span>
        ),
    },
    {
      key: 'actions',
      header: 'Actions',
      cell: (webhook) => (
        <span class="row">
          <Button variant="secondary" size="sm" onClick={() => setLogOf(webhook)}>
            Log
          </Button>
          <Button
            variant="secondary"
            size="sm"
            aria-label={`${webhook.enabled ? 'Disable' : 'Enable'} ${webhook.url}`}
            onClick={() =>
              void act(
                () => updateWebhook(session, scope, webhook.id, { enabled: !webhook.enabled }),
                webhook.enabled ? 'Disabled.' : 'Enabled.',
              )
            }
          >
            {webhook.enabled ? 'Disable' : 'Enable'}
          </Button>
          <Button
            variant="secondary"
            size="sm"
            onClick={() =>
              void act(async () => setSecret((await rotateWebhookSecret(session, scope, webhook.id)).secret), 'New secret made.')
            }
          >
            New secret
          </Button>
          <Button variant="secondary" size="sm" aria-label={`Delete ${webhook.url}`} onClick={() => setDeleting(webhook)}>
            Delete
          </Button>
        </span>
      ),
    },
  ];

  return (
    <Card title={COPY[scope].title}>
      <div class="stack">
        <p class="muted">{COPY[scope].about}</p>
        <Alert message={error ?? action.error} />
        {webhooks === undefined && !error && <p class="muted">Loading…</p>}
        {webhooks?.length === 0 && <EmptyState title="No webhook yet." />}
        {webhooks && webhooks.length > 0 && (
          <Table caption={COPY[scope].caption} columns={columns} rows={webhooks} rowKey={(webhook) => webhook.id} />
        )}
        <div>
          <Button onClick={() => setAdding(true)}>New webhook</Button>
        </div>
      </div>
      {adding && <NewWebhookDialog scope={scope} onClose={() => (setAdding(false), void reload())} />}
      {logOf && <DeliveryLog scope={scope} webhook={logOf} onClose={() => setLogOf(null)} />}
      {secret && <NewSecretDialog secret={secret} onClose={() => setSecret(null)} />}
      {deleting && (
        <DeleteWebhookDialog
          webhook={deleting}
          onDelete={() => void act(() => deleteWebhook(session, scope, deleting.id), 'Deleted.').then(() => setDeleting(null))}
          onClose={() => setDeleting(null)}
        />
      )}
    </Card>
  );
}
