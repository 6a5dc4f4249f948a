import { type DynamicModule, Module } from '@nestjs/common';
import { AdminReadRecorder } from '../application/audit/admin-read-recorder';
import { CheckAuditDigestUseCase } from '../application/audit/check-audit-digest.use-case';
import { ExportAuditCheckpointsUseCase } from '../application/audit/export-audit-checkpoints.use-case';
import { AuditProofsUseCase } from '../application/audit/audit-proofs.use-case';
import { ExportAuditPackUseCase } from '../application/audit/export-audit-pack.use-case';
import { AuditEvidence } from '../application/audit/ports/audit-evidence.port';
import { PostgresAuditEvidence } from '../infrastructure/persistence/repositories/postgres-audit-evidence';
import { AuditReader } from '../application/audit/ports/audit-reader.port';
import { SignatureVerifier } from '../application/audit/ports/checkpoint-signer.port';
import { VerifyAuditChainUseCase } from '../application/audit/verify-audit-chain.use-case';
import type { AppConfig } from '../infrastructure/config/app-config';
import { PostgresAuditReader } from '../infrastructure/persistence/repositories/postgres-audit-reader';
import { Ed25519SignatureVerifier } from '../infrastructure/security/ed25519-checkpoint-keys';
import { AccountsModule } from './accounts.module';
import { AuditLogModule } from './audit-log.module';
import { CoreModule } from './core.module';
import { PersistenceModule } from './persistence.module';

/** The operator's command (`src/admin.ts`): accounts, roles and the audit chain on the database, without HTTP. */
@Module({})
export class AdminCommandModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: AdminCommandModule,
      imports: [CoreModule.register(config), PersistenceModule, AccountsModule, AuditLogModule],
      providers: [
        { provide: AuditReader, useClass: PostgresAuditReader },
        AdminReadRecorder,
        VerifyAuditChainUseCase,
        AuditProofsUseCase,
        ExportAuditCheckpointsUseCase,
        { provide: AuditEvidence, useClass: PostgresAuditEvidence },
        ExportAuditPackUseCase,
      ],
    };
  }
}

/** `audit-check-digest`: a digest file's signatures, with no database and no configuration (the auditor's machine). */
@Module({
  providers: [{ provide: SignatureVerifier, useClass: Ed25519SignatureVerifier }, CheckAuditDigestUseCase],
})
export class AuditDigestCheckModule {}
