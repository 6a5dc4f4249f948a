import { type BeforeApplicationShutdown, Inject, Injectable, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { AuditLog } from '../application/agent/ports/audit-log.port';
import { AuditChainSealer } from '../application/audit/ports/audit-chain-sealer.port';
import { SealAuditChainUseCase } from '../application/audit/seal-audit-chain.use-case';
import { AppConfig } from '../infrastructure/config/app-config';
import { PeriodicJob } from '../infrastructure/periodic-job';
import { PostgresAuditChainSealer } from '../infrastructure/persistence/repositories/postgres-audit-chain-sealer';
import { AuditAppender, PostgresAuditLog } from '../infrastructure/persistence/repositories/postgres-audit-log';

/**
 * Every process that appends audit rows also offers to seal them: at start and every
 * AUDIT_SEAL_INTERVAL_MS. One process seals at a time; the rest find its lock taken. It
 * stops before the database closes.
 */
@Injectable()
class AuditSealingLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly sealing: PeriodicJob;

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    sealer: SealAuditChainUseCase,
  ) {
    this.sealing = new PeriodicJob('sealing the audit chain', () => sealer.run(), new Logger('Audit'));
  }

  onApplicationBootstrap(): void {
    this.sealing.start(this.config.auditSealIntervalMs);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.sealing.stop();
  }
}

/** The audit log and its hash chain, for the agent, the outreach controller, admins and the operator's command. */
@Module({
  providers: [
    AuditAppender,
    { provide: AuditLog, useClass: PostgresAuditLog },
    { provide: AuditChainSealer, useClass: PostgresAuditChainSealer },
    SealAuditChainUseCase,
    AuditSealingLifecycle,
  ],
  exports: [AuditAppender, AuditLog, SealAuditChainUseCase, AuditChainSealer],
})
export class AuditLogModule {}
