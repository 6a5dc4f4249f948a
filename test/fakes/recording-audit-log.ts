import { AuditLog, type ToolAuditEntry, type ToolAuditOutcome } from '../../src/application/audit/ports/audit-log.port';

export interface AuditRow {
  readonly seq: number;
  /** `pending`, or the outcome's status. */
  readonly status: string;
  readonly entry: ToolAuditEntry;
  /** Absent on a pending row. */
  readonly outcome?: ToolAuditOutcome;
  readonly pendingSeq?: number;
  /** Whether `unitOfWork` was open as the row was written; absent without one. */
  readonly inUnitOfWork?: boolean;
}

/**
 * The audit log in memory: every row in order, each also told to `journal` (`audit:pending`,
 * `audit:<status>`) so that a test can see it beside other ports' calls.
 */
export class RecordingAuditLog extends AuditLog {
  readonly rows: AuditRow[] = [];

  constructor(
    private readonly journal: string[] = [],
    private readonly unitOfWork?: { readonly open: boolean },
  ) {
    super();
  }

  recordPending(entry: ToolAuditEntry): Promise<number> {
    const seq = this.push({ status: 'pending', entry });
    return Promise.resolve(seq);
  }

  recordOutcome(pendingSeq: number, entry: ToolAuditEntry, outcome: ToolAuditOutcome): Promise<void> {
    this.push({ status: outcome.status, entry, outcome, pendingSeq });
    return Promise.resolve();
  }

  record(entry: ToolAuditEntry, outcome: ToolAuditOutcome): Promise<void> {
    this.push({ status: outcome.status, entry, outcome });
    return Promise.resolve();
  }

  private push(row: Omit<AuditRow, 'seq' | 'inUnitOfWork'>): number {
    this.journal.push(`audit:${row.status}`);
    const seq = this.rows.length + 1;
    this.rows.push({ seq, ...row, ...(this.unitOfWork && { inUnitOfWork: this.unitOfWork.open }) });
    return seq;
  }
}
