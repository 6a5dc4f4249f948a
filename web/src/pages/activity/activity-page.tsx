import { useState } from 'preact/hooks';
import { ApiError, downloadOwnReceipt, listOwnAuditRows, type OwnAuditRow, RECEIPT_NOT_YET } from '../../api';
import { saveBlob } from '../../lib/download';
import { AUDIT_STATUS, labelOf, plural, SOURCE_LABELS, toolLabel } from '../../lib/labels';
import { fullTime } from '../../lib/time';
import { failureText, usePages } from '../../lib/use-resource';
import { currentSession } from '../../state/session';
import { Alert, Badge, Button, type Column, EmptyState, Table } from '../../ui';
import './activity.css';

/** What asking for one row's receipt came to, shown in its row: under way, not yet provable, or refused. */
type ReceiptState = { readonly kind: 'busy' } | { readonly kind: 'not-yet' | 'error'; readonly message: string };

const sourceLabel = (source: string): string => (SOURCE_LABELS as Record<string, string>)[source] ?? source;

/**
 * Your activity: every audited action done in the person's name (chat, MCP, outreach, REST,
 * account changes), newest first, a page at a time, each with its receipt to download
 * (docs/audit-log.md#receipts). The server's words (a row no checkpoint covers yet) are shown as
 * text in the row they concern.
 */
export function ActivityPage() {
  const session = currentSession();
  const activity = usePages((cursor) => listOwnAuditRows(session, cursor), [session.userId]);
  const { items: rows, cursor, loading, error } = activity;
  const [receipts, setReceipts] = useState<ReadonlyMap<number, ReceiptState>>(new Map());

  const mark = (seq: number, state: ReceiptState | null) =>
    setReceipts((current) => {
      const next = new Map(current);
      if (state) next.set(seq, state);
      else next.delete(seq);
      return next;
    });

  async function download(row: OwnAuditRow) {
    mark(row.seq, { kind: 'busy' });
    try {
      saveBlob(await downloadOwnReceipt(session, row.seq), `bridle-receipt-${row.seq}.json`);
      mark(row.seq, null);
    } catch (failure) {
      const message = failureText(failure);
      if (message === null) return;
      const notYet = failure instanceof ApiError && failure.code === RECEIPT_NOT_YET;
      mark(row.seq, { kind: notYet ? 'not-yet' : 'error', message });
    }
  }

  const columns: Column<OwnAuditRow>[] = [
    { key: 'seq', header: '#', nowrap: true, cell: (row) => String(row.seq) },
    {
      key: 'time',
      header: 'Time',
      nowrap: true,
      cell: (row) => <time dateTime={row.createdAt}>{fullTime(row.createdAt)}</time>,
    },
    { key: 'what', header: 'What', cell: (row) => <What tool={row.tool} /> },
    { key: 'source', header: 'Source', cell: (row) => sourceLabel(row.source) },
    {
      key: 'outcome',
      header: 'Outcome',
      cell: (row) => {
        const status = labelOf(AUDIT_STATUS, row.status);
        return <Badge tone={status.tone}>{status.label}</Badge>;
      },
    },
    { key: 'receipt', header: 'Receipt', cell: (row) => <ReceiptCell row={row} state={receipts.get(row.seq)} onDownload={download} /> },
  ];

  return (
    <div class="page-body stack">
      <h1>Your activity</h1>
      <p class="muted activity-intro">
        What was done in your name, as Bridle’s audit log recorded it. A receipt proves one action to anyone holding the log’s public key,
        without trusting this server, and holds what you asked for and what came back: check it with{' '}
        <code>node verifier/bridle-audit-verify.mjs --receipt &lt;file&gt; --public-key &lt;key&gt;</code> (docs/audit-log.md, “Receipts”).
      </p>
      <Alert message={error} />
      <p class="summary muted" aria-live="polite">
        {loading && rows.length === 0
          ? 'Loading…'
          : rows.length === 0
            ? ''
            : `${plural(rows.length, 'action')}${cursor ? ', older ones below' : ''}.`}
      </p>
      {!loading && !error && rows.length === 0 && (
        <EmptyState title="Nothing recorded yet.">
          <p>Ask the assistant to add a task, and it shows up here.</p>
        </EmptyState>
      )}
      {rows.length > 0 && (
        <Table
          caption="Your audited actions, newest first"
          columns={columns}
          rows={rows}
          rowKey={(row) => String(row.seq)}
          busy={loading}
        />
      )}
      {cursor && (
        <div>
          <Button variant="secondary" busy={loading} onClick={() => void activity.more()}>
            Load more
          </Button>
        </div>
      )}
    </div>
  );
}

/** The tool in a person's words; a tool the console has no words for by its own name. */
function What({ tool }: { tool: string }) {
  const label = toolLabel(tool);
  return label ? <span title={tool}>{label}</span> : <code>{tool}</code>;
}

function ReceiptCell({
  row,
  state,
  onDownload,
}: {
  row: OwnAuditRow;
  state: ReceiptState | undefined;
  onDownload: (row: OwnAuditRow) => Promise<void>;
}) {
  return (
    <div class="receipt-cell">
      <Button
        variant="secondary"
        size="sm"
        busy={state?.kind === 'busy'}
        aria-label={`Download receipt ${row.seq}`}
        onClick={() => void onDownload(row)}
      >
        Download receipt
      </Button>
      {state?.kind === 'not-yet' && (
        <p class="notice receipt-note" role="status">
          {state.message}
        </p>
      )}
      {state?.kind === 'error' && <Alert class="receipt-note" message={state.message} />}
    </div>
  );
}
