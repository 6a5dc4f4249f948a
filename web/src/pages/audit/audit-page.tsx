import { useRef, useState } from 'preact/hooks';
import {
  AUDIT_SOURCES,
  AUDIT_STATUSES,
  type AuditFilter,
  type AuditRow,
  type ChainVerification,
  type Decision,
  exportAuditRows,
  getDecision,
  listAuditRows,
  verifyAuditChain,
} from '../../api';
import { saveBlob } from '../../lib/download';
import { AUDIT_STATUS, labelOf, plural, SOURCE_LABELS } from '../../lib/labels';
import { fullTime } from '../../lib/time';
import { failureText, useAction, usePages } from '../../lib/use-resource';
import { currentSession } from '../../state/session';
import { Alert, Badge, Button, type Column, Dialog, Field, Table } from '../../ui';
import { DecisionDetail, RowDetail } from './audit-detail';

type Detail = { kind: 'row'; row: AuditRow } | { kind: 'decision'; decision: Decision } | { kind: 'error'; message: string };

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
  const apply = setFilter;

  function readFilter(): AuditFilter {
    const data = new FormData(form.current!);
    const text = (name: string) => {
      const value = data.get(name);
      return (typeof value === 'string' && value.trim()) || undefined;
    };
    const iso = (name: string) => (text(name) ? new Date(text(name)!).toISOString() : undefined);
    return {
      source: text('source') as AuditFilter['source'],
      status: text('status') as AuditFilter['status'],
      tool: text('tool'),
      actorEmail: text('actorEmail'),
      from: iso('from'),
      to: iso('to'),
    };
  }

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
    apply(readFilter());
  };

  /** Downloads every row the applied filters select (the pages not yet shown too), as the API's NDJSON export gives them. */
  const download = () =>
    action.run('export', async () =>
      saveBlob(await exportAuditRows(session, filter), `bridle-audit-${new Date().toISOString().slice(0, 19).replace(/:/g, '-')}.ndjson`),
    );

  const columns: Column<AuditRow>[] = [
    { key: 'seq', header: '#', nowrap: true, cell: (row) => String(row.seq) },
    { key: 'time', header: 'Time', nowrap: true, cell: (row) => <time dateTime={row.createdAt}>{fullTime(row.createdAt)}</time> },
    {
      key: 'actor',
      header: 'Actor',
      cell: (row) =>
        row.actorEmail === null ? (
          <span class="muted" title={row.actorId}>
            deleted account
          </span>
        ) : (
          <button
            type="button"
            class="link"
            title={row.actorId}
            aria-label={`${row.actorEmail}: show only their rows`}
            onClick={() => filterByActor(row.actorEmail!)}
          >
            {row.actorEmail}
          </button>
        ),
    },
    {
      key: 'tool',
      header: 'Tool',
      cell: (row) => (
        <button type="button" class="link mono" aria-label={`Row ${row.seq}: ${row.tool}`} onClick={() => setDetail({ kind: 'row', row })}>
          {row.tool}
        </button>
      ),
    },
    {
      key: 'status',
      header: 'Status',
      cell: (row) => {
        const status = labelOf(AUDIT_STATUS, row.status);
        return (
          <>
            <Badge tone={status.tone} title={row.errorCode ?? undefined}>
              {status.label}
            </Badge>
            {row.chain === 'outside' && (
              <>
                {' '}
                <Badge tone="danger" title="Not a row of the log: written around its triggers. Verify fails on it.">
                  Outside the log
                </Badge>
              </>
            )}
          </>
        );
      },
    },
    { key: 'source', header: 'Source', cell: (row) => SOURCE_LABELS[row.source] ?? row.source },
    { key: 'ms', header: 'ms', nowrap: true, cell: (row) => (row.durationMs === null ? '—' : String(row.durationMs)) },
    {
      key: 'decision',
      header: 'Decision',
      cell: (row) =>
        row.decisionId ? (
          <button
            type="button"
            class="link"
            aria-label={`Open the decision of row ${row.seq}`}
            onClick={() => void showDecision(row.decisionId!)}
          >
            Open
          </button>
        ) : (
          '—'
        ),
    },
  ];

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
      <form
        ref={form}
        class="filters"
        aria-label="Audit filters"
        onSubmit={(event) => {
          event.preventDefault();
          apply(readFilter());
        }}
        onReset={() => setTimeout(() => apply(readFilter()))}
      >
        <Field label="Source" id="audit-source">
          {(ids) => (
            <select {...ids} name="source" class="input">
              <option value="">Any</option>
              {AUDIT_SOURCES.map((value) => (
                <option key={value} value={value}>
                  {SOURCE_LABELS[value]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Tool" id="audit-tool">
          {(ids) => <input {...ids} name="tool" class="input" autocomplete="off" maxLength={64} placeholder="send_email" />}
        </Field>
        <Field label="Status" id="audit-status">
          {(ids) => (
            <select {...ids} name="status" class="input">
              <option value="">Any</option>
              {AUDIT_STATUSES.map((value) => (
                <option key={value} value={value}>
                  {labelOf(AUDIT_STATUS, value).label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Actor email" id="audit-actor">
          {(ids) => (
            <input {...ids} name="actorEmail" type="email" class="input" autocomplete="off" maxLength={254} placeholder="ada@example.com" />
          )}
        </Field>
        <Field label="From (your time)" id="audit-from">
          {(ids) => <input {...ids} name="from" class="input" type="datetime-local" />}
        </Field>
        <Field label="Until (your time)" id="audit-to">
          {(ids) => <input {...ids} name="to" class="input" type="datetime-local" />}
        </Field>
        <div class="row filters-actions">
          <Button type="submit">Apply filters</Button>
          <Button type="reset" variant="secondary">
            Clear
          </Button>
        </div>
      </form>
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
      <Dialog
        open={detail !== null}
        placement="side"
        title={
          detail?.kind === 'row'
            ? `Row ${detail.row.seq}: ${detail.row.tool}`
            : detail?.kind === 'decision'
              ? `Decision: ${detail.decision.decisionType}`
              : 'Details'
        }
        onClose={() => setDetail(null)}
        actions={
          <>
            {detail?.kind === 'row' && detail.row.decisionId && (
              <Button variant="secondary" onClick={() => void showDecision(detail.row.decisionId!)}>
                Open its decision
              </Button>
            )}
            <Button variant="ghost" onClick={() => setDetail(null)}>
              Close
            </Button>
          </>
        }
      >
        {detail?.kind === 'row' && <RowDetail row={detail.row} />}
        {detail?.kind === 'decision' && <DecisionDetail decision={detail.decision} />}
        <Alert message={detail?.kind === 'error' && detail.message} />
      </Dialog>
    </div>
  );
}

function ChainBadge({ chain }: { chain: ChainVerification | 'checking' | null }) {
  if (chain === null) return <Badge tone="neutral">Chain not checked</Badge>;
  if (chain === 'checking') return <Badge tone="info">Checking every row…</Badge>;
  if (chain.verified) {
    return (
      <span data-verified="true">
        <Badge tone="success" title={chain.headHash ? `Head hash ${chain.headHash}` : undefined}>
          Chain intact · {plural(chain.checkedRows, 'row')}
        </Badge>
      </span>
    );
  }
  return (
    <span data-verified="false" role="alert">
      <Badge tone="danger">Chain broken at row {chain.firstBadSeq ?? '?'}</Badge>
    </span>
  );
}
