import type { AuditRow } from '../../api';
import { AUDIT_STATUS, labelOf, SOURCE_LABELS } from '../../lib/labels';
import { fullTime } from '../../lib/time';
import { Badge, type Column } from '../../ui';

interface Handlers {
  /** Shows only the rows of this actor. */
  filterByActor: (email: string) => void;
  showRow: (row: AuditRow) => void;
  showDecision: (id: string) => void;
}

/** The log's columns: an actor filters by them, a tool opens its row, Open its decision. */
export function auditColumns({ filterByActor, showRow, showDecision }: Handlers): Column<AuditRow>[] {
  return [
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
        <button type="button" class="link mono" aria-label={`Row ${row.seq}: ${row.tool}`} onClick={() => showRow(row)}>
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
            onClick={() => showDecision(row.decisionId!)}
          >
            Open
          </button>
        ) : (
          '—'
        ),
    },
  ];
}
