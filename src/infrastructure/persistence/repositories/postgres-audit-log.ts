import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import {
  AuditLog,
  type ToolAuditEntry,
  type ToolAuditOutcome,
  type ToolAuditStatus,
} from '../../../application/agent/ports/audit-log.port';
import { Metrics } from '../../../application/shared/ports/metrics.port';
import { recordedToolName } from '../../../domain/agent/model-output';
import { jsonColumn } from '../json-column';
import { afterCommit, type Sql, selectRow, sql } from '../sql';
import { z } from 'zod';

type AuditRowOutcome = Omit<Partial<ToolAuditOutcome>, 'status'> & { readonly status: ToolAuditStatus };

/** bigserial comes back as text. */
const SEQ_ROW = z.object({ seq: z.coerce.number().int() });

/** Appends one audit row in the transaction it was handed. @returns the row's sequence number. */
export type AppendInTransaction = (entry: ToolAuditEntry, outcome: AuditRowOutcome, pendingSeq: number | null) => Promise<number>;

/**
 * Appends audit rows: the only code that writes audit_log, so that every writer (chat, MCP,
 * outreach, admin reads; inside or outside a transaction) produces the same rows, each
 * queued for the sealer that chains them (AuditChainSealer). Rows are counted for /metrics
 * once committed, so a rolled-back one never is.
 */
@Injectable()
export class AuditAppender {
  constructor(private readonly metrics: Metrics) {}

  /** One row on its own, or in the unit of work open around the call. @returns the row's sequence number. */
  async append(dataSource: DataSource, entry: ToolAuditEntry, outcome: AuditRowOutcome, pendingSeq: number | null): Promise<number> {
    const seq = await this.insert(dataSource, entry, outcome, pendingSeq);
    // Inside a unit of work (a tool's write and its outcome), counted once that commits.
    afterCommit(() => this.metrics.auditRowAppended(entry.source, outcome.status));
    return seq;
  }

  /** Runs `work` in one transaction on `dataSource`, with `append` writing into it. */
  async transaction<T>(dataSource: DataSource, work: (manager: EntityManager, append: AppendInTransaction) => Promise<T>): Promise<T> {
    const appended: [string, string][] = [];
    const result = await dataSource.transaction((manager) =>
      work(manager, async (entry, outcome, pendingSeq) => {
        const seq = await this.insert(manager, entry, outcome, pendingSeq);
        appended.push([entry.source, outcome.status]);
        return seq;
      }),
    );
    for (const [source, status] of appended) this.metrics.auditRowAppended(source, status);
    return result;
  }

  private async insert(db: Sql, entry: ToolAuditEntry, outcome: AuditRowOutcome, pendingSeq: number | null): Promise<number> {
    // A name from an MCP client is recorded as sent, made storable and bounded.
    const tool = recordedToolName(entry.tool);
    // Secrets never enter the table: masked here, by the domain's one policy.
    const [args, result] = [jsonColumn(entry.arguments), outcome.result === undefined ? null : jsonColumn(outcome.result)];
    // No lock: the table's statement trigger queues the row for the sealer, which links it
    // into the chain later, in batches (migration 1766188800000).
    const row = await selectRow(
      db,
      sql`INSERT INTO audit_log
            (source, actor_id, conversation_id, campaign_id, outreach_task_id, decision_id, tool, arguments, security_events,
             status, result, error_code, duration_ms, pending_seq)
          VALUES (
            ${entry.source}, ${entry.actorId}, ${entry.conversationId ?? null}, ${entry.campaignId ?? null},
            ${entry.outreachTaskId ?? null}, ${entry.decisionId ?? null},
            ${tool}, ${args}, ${JSON.stringify(entry.securityEvents)},
            ${outcome.status}, ${result}, ${outcome.errorCode ?? null},
            ${outcome.durationMs ?? null}, ${pendingSeq}
          )
          RETURNING seq`,
      SEQ_ROW,
    );
    return row!.seq;
  }
}

@Injectable()
export class PostgresAuditLog extends AuditLog {
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
