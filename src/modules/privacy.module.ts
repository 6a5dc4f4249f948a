import { Module } from '@nestjs/common';
import { ErasePersonalDataUseCase } from '../application/privacy/erase-personal-data.use-case';
import { ErasureStore } from '../application/privacy/ports/erasure-store.port';
import { RetentionStore } from '../application/privacy/ports/retention-store.port';
import { PrunePastRetentionUseCase, RetentionSettings } from '../application/privacy/prune-past-retention.use-case';
import { AppConfig } from '../infrastructure/config/app-config';
import { periodicJobProvider } from '../infrastructure/periodic-job';
import { PostgresErasureStore } from '../infrastructure/persistence/repositories/postgres-erasure-store';
import { PostgresRetentionStore } from '../infrastructure/persistence/repositories/postgres-retention-store';
import { AdminErasuresController, ErasuresController } from '../interfaces/http/privacy/erasures.controller';
import { AuditLogModule } from './audit-log.module';
import { erasedAddressKeyProvider } from './erased-address-key.provider';
import { IdentityModule } from './identity.module';

/**
 * Erasure on request and retention (docs/record-keeping.md): the HTTP routes, and the pruning
 * every server process offers at start and every RETENTION_INTERVAL_MINUTES (one at a time).
 */
@Module({
  imports: [IdentityModule, AuditLogModule],
  controllers: [ErasuresController, AdminErasuresController],
  providers: [
    erasedAddressKeyProvider,
    { provide: ErasureStore, useClass: PostgresErasureStore },
    { provide: RetentionStore, useClass: PostgresRetentionStore },
    { provide: RetentionSettings, useFactory: (config: AppConfig): RetentionSettings => config.retention, inject: [AppConfig] },
    ErasePersonalDataUseCase,
    PrunePastRetentionUseCase,
    periodicJobProvider({
      what: 'pruning what is past retention',
      context: 'Retention',
      uses: PrunePastRetentionUseCase,
      intervalMs: (config) => config.retention.intervalMinutes * 60_000,
      run: (retention) => retention.run(),
    }),
  ],
  exports: [ErasePersonalDataUseCase, PrunePastRetentionUseCase],
})
export class PrivacyModule {}
