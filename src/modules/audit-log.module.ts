import { Module } from '@nestjs/common';
import { AuditLog } from '../application/agent/ports/audit-log.port';
import { AuditAppender, PostgresAuditLog } from '../infrastructure/persistence/repositories/postgres-audit-log';

/** The hash-chained audit log, for the agent, the outreach controller and the operator's command. */
@Module({
  providers: [AuditAppender, { provide: AuditLog, useClass: PostgresAuditLog }],
  exports: [AuditAppender, AuditLog],
})
export class AuditLogModule {}
