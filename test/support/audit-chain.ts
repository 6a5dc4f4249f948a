import { merkleHasher } from '../../src/infrastructure/security/sha256';
import { PostgresAuditTree } from '../../src/infrastructure/persistence/repositories/postgres-audit-tree';
import { generateKeyPairSync } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { AdminReadRecorder } from '../../src/application/audit/admin-read-recorder';
import { AuditCheckpoints } from '../../src/application/audit/audit-checkpoints';
import { SealAuditChainUseCase } from '../../src/application/audit/seal-audit-chain.use-case';
import { type ChainVerificationReport, VerifyAuditChainUseCase } from '../../src/application/audit/verify-audit-chain.use-case';
import { PostgresAuditChainSealer } from '../../src/infrastructure/persistence/repositories/postgres-audit-chain-sealer';
import { PostgresAuditLog } from '../../src/infrastructure/persistence/repositories/postgres-audit-log';
import { PostgresAuditReader } from '../../src/infrastructure/persistence/repositories/postgres-audit-reader';
import { inTransaction } from '../../src/infrastructure/persistence/sql';
import { AuditAppender } from '../../src/infrastructure/persistence/tables/audit-log';
import { Ed25519CheckpointSigner, Ed25519SignatureVerifier } from '../../src/infrastructure/security/ed25519-checkpoint-keys';
import { runAdminCommand } from '../../src/interfaces/cli/admin-command';
import { FixedClock } from '../fakes/fixed-clock';
import { RecordingMetrics } from '../fakes/recording-metrics';

/**
 * The chain as the database holds it, recomputed in SQL: the seq of every link that does
 * not follow the one before it or does not hash to its row, in chain order.
 */
export const BROKEN_LINKS = `
  SELECT seq FROM (
    SELECT c.position, c.seq, c.prev_hash, c.hash, a.seq IS NOT NULL AND c.hash = audit_row_hash(c.prev_hash, a) AS intact,
           coalesce(lag(c.hash) OVER (ORDER BY c.position), repeat('0', 64)) AS previous,
           c.position - coalesce(lag(c.position) OVER (ORDER BY c.position), 0) AS step
    FROM audit_chain c LEFT JOIN audit_log a ON a.seq = c.seq) l
  WHERE prev_hash <> previous OR NOT intact OR step <> 1
  ORDER BY position`;

/** audit_log rows that are neither linked into the chain nor waiting for the sealer. */
export const STRAY_ROWS = `
  SELECT a.seq FROM audit_log a
  WHERE NOT EXISTS (SELECT 1 FROM audit_chain c WHERE c.seq = a.seq) AND NOT EXISTS (SELECT 1 FROM audit_unsealed u WHERE u.seq = a.seq)
  ORDER BY a.seq`;

/**
 * The audit chain's verification as the service and the operator's command build it, on
 * `database`: sealing first, checkpoints signed with a key of the test's own every
 * `checkpointRows` links (never, by default).
 */
export function verifierOn(database: DataSource, checkpointRows = 1_000_000): VerifyAuditChainUseCase {
  const clock = new FixedClock(new Date());
  const key = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  const checkpoints = new AuditCheckpoints(
    new Ed25519CheckpointSigner(key),
    new Ed25519SignatureVerifier(),
    clock,
    {
      interval: { rows: checkpointRows, ms: 24 * 3600_000 },
      origin: 'bridle.test/audit',
    },
    merkleHasher,
  );
  const recorder = new AdminReadRecorder(new PostgresAuditLog(database, new AuditAppender(new RecordingMetrics())), clock);
  const seal = new SealAuditChainUseCase(new PostgresAuditChainSealer(database), checkpoints);
  return new VerifyAuditChainUseCase(
    new PostgresAuditReader(database),
    recorder,
    seal,
    checkpoints,
    new PostgresAuditTree(database),
    merkleHasher,
  );
}

/** `audit-verify [--full]`, the operator's command, run in process with `verifier`: its exit status and output. */
export async function auditVerifyCommand(
  verifier: VerifyAuditChainUseCase,
  full: boolean,
): Promise<{ status: number; report: ChainVerificationReport; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runAdminCommand(
    { name: 'audit-verify', full, against: undefined },
    { get: <T>(token: unknown) => (token === VerifyAuditChainUseCase ? verifier : unexpected(token)) as T },
    {
      operator: 'test',
      out: (line) => out.push(line),
      err: (line) => err.push(line),
      readStdin: () => Promise.resolve(''),
      readFile: () => Promise.reject(new Error('no file')),
    },
  );
  return { status, report: JSON.parse(out[0]) as ChainVerificationReport, stderr: err.join('\n') };
}

function unexpected(token: unknown): never {
  throw new Error(`audit-verify asked for ${String(token)}`);
}

/** Thrown to roll back, and caught. */
class Undone extends Error {}

/**
 * Runs `work` in one transaction on `database` and rolls it back: every statement of the
 * adapters in it (sql.ts) and of `manager` joins it, DDL included, so what the tables' owner
 * did there, and whatever was sealed or read of it, leaves no trace for the next run.
 */
export async function thenUndone<T>(database: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  let result: { value: T } | undefined;
  try {
    await inTransaction(database, async (manager) => {
      result = { value: await work(manager) };
      throw new Undone();
    });
  } catch (error) {
    if (!(error instanceof Undone)) throw error;
  }
  return result!.value;
}

/**
 * What the owner of the audit tables can do that the application's role cannot: with every
 * trigger off for the transaction (`session_replication_role = replica`: no append-only
 * refusal, no queueing, no foreign keys) and the constraints on seq dropped, run `statements`;
 * then the triggers are back on.
 */
export async function asTablesOwner(manager: EntityManager, statements: readonly (string | [string, unknown[]])[]): Promise<void> {
  await manager.query(`SET LOCAL session_replication_role = replica`);
  await manager.query(`ALTER TABLE audit_log DROP CONSTRAINT IF EXISTS audit_log_numbered, DROP CONSTRAINT audit_log_pkey CASCADE`);
  await manager.query(`ALTER TABLE audit_chain DROP CONSTRAINT IF EXISTS audit_chain_numbered`);
  for (const statement of statements) {
    if (typeof statement === 'string') await manager.query(statement);
    else await manager.query(statement[0], statement[1]);
  }
  await manager.query(`SET LOCAL session_replication_role = origin`);
}
