import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  AuditLog,
  type ToolAuditEntry,
  type ToolAuditOutcome,
  type ToolAuditStatus,
} from '../../../application/agent/ports/audit-log.port';

const INSERT = `INSERT INTO audit_log
  (source, actor_id, conversation_id, decision_id, tool, arguments, security_events, status, result, error_code, duration_ms, pending_seq)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
  RETURNING seq`;

@Injectable()
export class TypeOrmAuditLog extends AuditLog {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async recordPending(entry: ToolAuditEntry): Promise<number> {
    return this.insert(entry, { status: 'pending' }, null);
  }

  async recordOutcome(pendingSeq: number, entry: ToolAuditEntry, outcome: ToolAuditOutcome): Promise<void> {
    await this.insert(entry, outcome, pendingSeq);
  }

  async record(entry: ToolAuditEntry, outcome: ToolAuditOutcome): Promise<void> {
    await this.insert(entry, outcome, null);
  }

  private async insert(
    entry: ToolAuditEntry,
    outcome: Omit<Partial<ToolAuditOutcome>, 'status'> & { status: ToolAuditStatus },
    pendingSeq: number | null,
  ): Promise<number> {
    const rows = await this.dataSource.query<{ seq: string }[]>(INSERT, [
      entry.source,
      entry.actorId,
      entry.conversationId ?? null,
      entry.decisionId ?? null,
      entry.tool,
      JSON.stringify(entry.arguments),
      JSON.stringify(entry.securityEvents),
      outcome.status,
      outcome.result === undefined ? null : JSON.stringify(outcome.result),
      outcome.errorCode ?? null,
      outcome.durationMs ?? null,
      pendingSeq,
    ]);
    return Number(rows[0].seq);
  }
}
