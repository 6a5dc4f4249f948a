import { Module } from '@nestjs/common';
import { AuditLog } from '../application/agent/ports/audit-log.port';
import { AuditChainSealer } from '../application/audit/ports/audit-chain-sealer.port';
import { SealAuditChainUseCase } from '../application/audit/seal-audit-chain.use-case';
import { periodicJobProvider } from '../infrastructure/periodic-job';
import { PostgresAuditChainSealer } from '../infrastructure/persistence/repositories/postgres-audit-chain-sealer';
import { AuditAppender, PostgresAuditLog } from '../infrastructure/persistence/repositories/postgres-audit-log';

/** The audit log and its hash chain, for the agent, the outreach controller, admins and the operator's command. */
@Module({
  providers: [
    AuditAppender,
    { provide: AuditLog, useClass: PostgresAuditLog },
    { provide: AuditChainSealer, useClass: PostgresAuditChainSealer },
    SealAuditChainUseCase,
    // Every process that appends audit rows also offers to seal them: at start and every
    // AUDIT_SEAL_INTERVAL_MS. One process seals at a time; the rest find its lock taken.
    periodicJobProvider({
      what: 'sealing the audit chain',
      context: 'Audit',
      uses: SealAuditChainUseCase,
      intervalMs: (config) => config.auditSealIntervalMs,
      run: (sealer) => sealer.run(),
    }),
  ],
  exports: [AuditAppender, AuditLog, SealAuditChainUseCase, AuditChainSealer],
})
export class AuditLogModule {}
