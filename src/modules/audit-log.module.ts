import { Logger, Module } from '@nestjs/common';
import { AuditLog } from '../application/audit/ports/audit-log.port';
import { AuditCheckpoints, AuditCheckpointSettings } from '../application/audit/audit-checkpoints';
import { AuditChainSealer } from '../application/audit/ports/audit-chain-sealer.port';
import { AuditTree } from '../application/audit/ports/audit-tree.port';
import { CheckpointSigner, SignatureVerifier } from '../application/audit/ports/checkpoint-signer.port';
import { MerkleHasher } from '../domain/audit/merkle';
import { SealAuditChainUseCase } from '../application/audit/seal-audit-chain.use-case';
import { AppConfig } from '../infrastructure/config/app-config';
import { periodicJobProvider } from '../infrastructure/periodic-job';
import { PostgresAuditChainSealer } from '../infrastructure/persistence/repositories/postgres-audit-chain-sealer';
import { PostgresAuditLog } from '../infrastructure/persistence/repositories/postgres-audit-log';
import { PostgresAuditTree } from '../infrastructure/persistence/repositories/postgres-audit-tree';
import { merkleHasher } from '../infrastructure/security/sha256';
import { AuditAppender } from '../infrastructure/persistence/tables/audit-log';
import {
  Ed25519CheckpointSigner,
  Ed25519SignatureVerifier,
  resolveAuditSigningKey,
} from '../infrastructure/security/ed25519-checkpoint-keys';

/** The audit log, its hash chain, its Merkle tree and its signed checkpoints, for the agent, the outreach controller, admins and the operator's command. */
@Module({
  providers: [
    AuditAppender,
    { provide: AuditLog, useClass: PostgresAuditLog },
    { provide: MerkleHasher, useValue: merkleHasher },
    { provide: AuditChainSealer, useClass: PostgresAuditChainSealer },
    { provide: AuditTree, useClass: PostgresAuditTree },
    {
      provide: CheckpointSigner,
      useFactory: async (config: AppConfig) => {
        const logger = new Logger('Audit');
        return new Ed25519CheckpointSigner(await resolveAuditSigningKey(config, (message) => logger.warn(message)));
      },
      inject: [AppConfig],
    },
    { provide: SignatureVerifier, useClass: Ed25519SignatureVerifier },
    {
      provide: AuditCheckpointSettings,
      useFactory: (config: AppConfig): AuditCheckpointSettings => ({
        interval: { rows: config.auditCheckpoint.rows, ms: config.auditCheckpoint.minutes * 60_000 },
        origin: config.auditLogOrigin,
      }),
      inject: [AppConfig],
    },
    AuditCheckpoints,
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
  exports: [AuditAppender, AuditLog, SealAuditChainUseCase, AuditChainSealer, AuditCheckpoints, SignatureVerifier, AuditTree, MerkleHasher],
})
export class AuditLogModule {}
