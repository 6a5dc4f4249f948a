import { listWebhookDeliveries, type Webhook, type WebhookDeliveryPage, type WebhookScope } from '../../../api';
import { fullTime, timeAgo } from '../../../lib/time';
import { usePages } from '../../../lib/use-resource';
import { currentSession } from '../../../state/session';
import { Alert, Badge, Button, Dialog, EmptyState, Table } from '../../../ui';
import type { Column } from '../../../ui/table';
import { OUTCOME_TONE } from './words';

type Delivery = WebhookDeliveryPage['items'][number];

const COLUMNS: Column<Delivery>[] = [
  { key: 'at', header: 'When', nowrap: true, cell: (row) => <time title={fullTime(row.attemptedAt)}>{timeAgo(row.attemptedAt)}</time> },
  { key: 'event', header: 'Event', cell: (row) => <code>{row.event}</code> },
  { key: 'attempt', header: 'Attempt', nowrap: true, cell: (row) => row.attempt },
  { key: 'outcome', header: 'Outcome', cell: (row) => <Badge tone={OUTCOME_TONE[row.outcome]}>{row.outcome}</Badge> },
  { key: 'answer', header: 'Answer', nowrap: true, cell: (row) => (row.status !== null ? `HTTP ${row.status}` : (row.failure ?? '')) },
  { key: 'duration', header: 'Took', nowrap: true, cell: (row) => `${row.durationMs} ms` },
  {
    key: 'next',
    header: 'Next attempt',
    nowrap: true,
    cell: (row) => (row.nextAttemptAt ? <time title={fullTime(row.nextAttemptAt)}>{timeAgo(row.nextAttemptAt)}</time> : null),
  },
  { key: 'id', header: 'webhook-id', cell: (row) => <code class="muted">{row.messageId}</code> },
];

/** Every attempt to deliver to one endpoint, latest first, a page at a time. */
export function DeliveryLog({ scope, webhook, onClose }: { scope: WebhookScope; webhook: Webhook; onClose: () => void }) {
  const session = currentSession();
  const deliveries = usePages((cursor) => listWebhookDeliveries(session, scope, webhook.id, cursor ?? undefined), [webhook.id]);
  const { items: rows, loading: busy, error } = deliveries;

  return (
    <Dialog open placement="side" title="Delivery log" onClose={onClose} actions={<Button onClick={onClose}>Close</Button>}>
      <div class="stack">
        <p class="muted mono">{webhook.url}</p>
        <Alert message={error} />
        {!busy && !error && rows.length === 0 && <EmptyState title="Nothing delivered yet." />}
        {rows.length > 0 && (
          <Table
            caption="Delivery attempts"
            columns={COLUMNS}
            rows={rows}
            rowKey={(row) => `${row.messageId}:${row.attempt}:${row.attemptedAt}`}
            busy={busy}
          />
        )}
        {deliveries.cursor && (
          <div>
            <Button variant="secondary" busy={busy} onClick={() => void deliveries.more()}>
              Older attempts
            </Button>
          </div>
        )}
      </div>
    </Dialog>
  );
}
