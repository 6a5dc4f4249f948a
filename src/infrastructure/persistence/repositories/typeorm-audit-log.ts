import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  AuditLog,
  type ToolAuditEntry,
  type ToolAuditOutcome,
  type ToolAuditStatus,
} from '../../../application/agent/ports/audit-log.port';
import { Metrics } from '../../../application/shared/ports/metrics.port';
import { redact } from '../../../domain/audit/redaction';

/** Runs one SQL statement: a DataSource, or a transaction's EntityManager. */
export type Sql = { query<T = unknown>(sql: string, parameters?: unknown[]): Promise<T> };

export type AuditRowOutcome = Omit<Partial<ToolAuditOutcome>, 'status'> & { readonly status: ToolAuditStatus };

const INSERT = `INSERT INTO audit_log
  (source, actor_id, conversation_id, campaign_id, outreach_task_id, decision_id, tool, arguments, security_events,
   status, result, error_code, duration_ms, pending_seq)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
  RETURNING seq`;

/**
 * Appends audit rows: the only code that writes audit_log, so that every writer (chat, MCP,
 * outreach, admin reads; inside or outside a transaction) produces the same rows. The
 * database chains them (migration 1764115200000).
 */
@Injectable()
export class AuditAppender {
  constructor(private readonly metrics: Metrics) {}

  /** @returns the row's sequence number. */
  async append(sql: Sql, entry: ToolAuditEntry, outcome: AuditRowOutcome, pendingSeq: number | null): Promise<number> {
    const rows = await sql.query<{ seq: string }[]>(INSERT, [
      entry.source,
      entry.actorId,
      entry.conversationId ?? null,
      entry.campaignId ?? null,
      entry.outreachTaskId ?? null,
      entry.decisionId ?? null,
      entry.tool,
      // Secrets never enter the table: masked here, by the domain's one policy.
      JSON.stringify(redact(entry.arguments)),
      JSON.stringify(entry.securityEvents),
      outcome.status,
      outcome.result === undefined ? null : JSON.stringify(redact(outcome.result)),
      outcome.errorCode ?? null,
      outcome.durationMs ?? null,
      pendingSeq,
    ]);
    this.metrics.auditRowAppended(entry.source, outcome.status);
    return Number(rows[0].seq);
  }
}

@Injectable()
export class TypeOrmAuditLog extends AuditLog {
  constructor(
    private readonly dataSource: DataSource,
    private readonly appender: AuditAppender,
  ) {
    super();
  }

  recordPending(entry: ToolAuditEntry): Promise<number> {
    return this.appender.append(this.dataSource, entry, { status: 'pending' }, null);
  }

  async recordOutcome(pendingSeq: number, entry: ToolAuditEntry, outcome: ToolAuditOutcome): Promise<void> {
    await this.appender.append(this.dataSource, entry, outcome, pendingSeq);
  }

  async record(entry: ToolAuditEntry, outcome: ToolAuditOutcome): Promise<void> {
    await this.appender.append(this.dataSource, entry, outcome, null);
  }
}
