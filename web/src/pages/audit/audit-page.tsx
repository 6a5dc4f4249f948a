import { useRef, useState } from 'preact/hooks';
import { type AuditFilter, type ChainVerification, exportAuditRows, getDecision, listAuditRows, verifyAuditChain } from '../../api';
import { saveBlob } from '../../lib/download';
import { plural } from '../../lib/labels';
import { failureText, useAction, usePages } from '../../lib/use-resource';
import { currentSession } from '../../state/session';
import { Alert, Button, Table } from '../../ui';
import { auditColumns } from './audit-columns';
import { AuditFilters, readFilter } from './audit-filters';
import { ChainBadge } from './chain-badge';
import { type Detail, DetailDialog } from './detail-dialog';
import './audit.css';

/** The Audit page (admins only): the filterable, cursor-paged log, a row's or a decision's detail, the chain check. */
export function AuditPage() {
  const session = currentSession();
  const [filter, setFilter] = useState<AuditFilter>({});
  // A new filter (a new object, even with the same values) reads its first page at once, and supersedes any load under way.
  const log = usePages((cursor) => listAuditRows(session, filter, cursor), [filter]);
  const { items: rows, cursor, loading } = log;
  const [detail, setDetail] = useState<Detail | null>(null);
  const [chain, setChain] = useState<ChainVerification | 'checking' | null>(null);
  const action = useAction<'export'>();
  const error = log.error ?? action.error;
  const form = useRef<HTMLFormElement>(null);

  async function showDecision(id: string) {
    try {
      setDetail({ kind: 'decision', decision: await getDecision(session, id) });
    } catch (failure) {
      const message = failureText(failure);
      if (message) setDetail({ kind: 'error', message });
    }
  }

  async function verify() {
    setChain('checking');
    try {
      setChain(await verifyAuditChain(session));
    } catch (failure) {
      setChain(null);
      action.setError(failureText(failure));
    }
  }

  const filterByActor = (email: string) => {
    const input = form.current?.elements.namedItem('actorEmail') as HTMLInputElement | null;
    if (input) input.value = email;
    setFilter(readFilter(form.current!));
  };

  /** Downloads every row the applied filters select (the pages not yet shown too), as the API's NDJSON export gives them. */
  const download = () =>
    action.run('export', async () =>
      saveBlob(await exportAuditRows(session, filter), `bridle-audit-${new Date().toISOString().slice(0, 19).replace(/:/g, '-')}.ndjson`),
    );

  const columns = auditColumns({
    filterByActor,
    showRow: (row) => setDetail({ kind: 'row', row }),
    showDecision: (id) => void showDecision(id),
  });

  const selectedKey = detail?.kind === 'row' ? String(detail.row.seq) : null;

  return (
    <div class="page-body stack">
      <div class="spread">
        <h1 id="audit-title">Audit log</h1>
        <div class="row">
          <ChainBadge chain={chain} />
          <Button variant="secondary" size="sm" busy={chain === 'checking'} onClick={() => void verify()}>
            Verify integrity
          </Button>
        </div>
      </div>
      <AuditFilters form={form} onApply={setFilter} />
      <Alert message={error} />
      <div class="spread">
        <p class="summary muted" aria-live="polite">
          {loading && rows.length === 0
            ? 'Loading…'
            : rows.length === 0
              ? 'No audit rows match these filters.'
              : `${plural(rows.length, 'row')}${cursor ? ', older ones below' : ''}.`}
        </p>
        <Button
          variant="secondary"
          size="sm"
          busy={action.busy === 'export'}
          disabled={loading}
          title="Every row these filters select, oldest first, one JSON object a line"
          onClick={() => void download()}
        >
          Export NDJSON
        </Button>
      </div>
      <Table
        caption="Audit rows, newest first"
        columns={columns}
        rows={rows}
        rowKey={(row) => String(row.seq)}
        selected={selectedKey}
        busy={loading}
      />
      {cursor && (
        <Button variant="secondary" busy={loading} onClick={() => void log.more()}>
          Show older rows
        </Button>
      )}
      <DetailDialog detail={detail} onDecision={(id) => void showDecision(id)} onClose={() => setDetail(null)} />
    </div>
  );
}
