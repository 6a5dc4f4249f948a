import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditLog, type ToolAuditEntry, type ToolAuditOutcome } from '../../../application/audit/ports/audit-log.port';
import { AuditAppender } from '../tables/audit-log';

/** The agent's audit log (the AuditLog port): every row through the appender, the one writer of audit_log. */
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
