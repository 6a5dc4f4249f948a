import { Injectable } from '@nestjs/common';
import { DomainError } from '../../domain/shared/domain-error';
import { AuditLog, type ToolAuditEnding, type ToolAuditEntry, type ToolAuditOutcome, UNEXPECTED_ERROR } from './ports/audit-log.port';
import { Clock } from '../shared/ports/clock.port';
import type { AuditFilter, DecisionFilter } from './ports/audit-reader.port';

/** What an admin read: the audit row's tool and arguments. */
export interface AdminRead {
  readonly adminId: string;
  /** e.g. `admin.audit_logs.list`. */
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** `account` for a person's read of their own records (a receipt); `admin` by default. */
  readonly source?: 'admin' | 'account';
}

/**
 * Every read of the audit trail by an admin is itself an audit row (source 'admin', the
 * admin as actor), appended after the read so that it records how the read went.
 */
@Injectable()
export class AdminReadRecorder {
  constructor(
    private readonly auditLog: AuditLog,
    private readonly clock: Clock,
  ) {}

  /** Runs `read`, then appends its row with `summary` of what it returned; a failed read is recorded and rethrown. */
  async around<T>(read: AdminRead, run: () => Promise<T>, summary: (result: T) => unknown): Promise<T> {
    const started = this.clock.now().getTime();
    let result: T;
    try {
      result = await run();
    } catch (error) {
      // The read's own error is the one to report, even if recording it fails too.
      await this.auditLog.record(entryOf(read), this.failure(error, started)).catch(() => undefined);
      throw error;
    }
    await this.auditLog.record(entryOf(read), { status: 'succeeded', result: summary(result), durationMs: this.since(started) });
    return result;
  }

  /**
   * For a read that streams: the pending row is committed before the first row is read,
   * and `finish` appends the outcome that references it.
   */
  async start(read: AdminRead): Promise<{ finish(outcome: ToolAuditEnding): Promise<void> }> {
    const started = this.clock.now().getTime();
    const entry = entryOf(read);
    const pendingSeq = await this.auditLog.recordPending(entry);
    return {
      finish: (outcome) => this.auditLog.recordOutcome(pendingSeq, entry, { ...outcome, durationMs: this.since(started) }),
    };
  }

  private failure(error: unknown, started: number): ToolAuditOutcome {
    const durationMs = this.since(started);
    if (!(error instanceof DomainError)) return { status: 'failed', errorCode: 'INTERNAL', errorMessage: UNEXPECTED_ERROR, durationMs };
    return { status: error.kind === 'validation' ? 'rejected' : 'failed', errorCode: error.code, errorMessage: error.message, durationMs };
  }

  private since(started: number): number {
    return Math.max(0, this.clock.now().getTime() - started);
  }
}

/** The filters as they were asked for: set fields only, times as ISO text. */
export function filterArguments(filter: AuditFilter | DecisionFilter): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(filter)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => [key, value instanceof Date ? value.toISOString() : value]),
  );
}

function entryOf(read: AdminRead): ToolAuditEntry {
  return { source: read.source ?? 'admin', actorId: read.adminId, tool: read.tool, arguments: read.arguments, securityEvents: [] };
}
