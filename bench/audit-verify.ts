import { merkleHasher } from '../src/infrastructure/security/sha256';
import { PostgresAuditTree } from '../src/infrastructure/persistence/repositories/postgres-audit-tree';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { AdminReadRecorder } from '../src/application/audit/admin-read-recorder';
import { AuditCheckpoints } from '../src/application/audit/audit-checkpoints';
import { SealAuditChainUseCase } from '../src/application/audit/seal-audit-chain.use-case';
import { VerifyAuditChainUseCase } from '../src/application/audit/verify-audit-chain.use-case';
import type { Metrics } from '../src/application/shared/ports/metrics.port';
import type { DataSource } from 'typeorm';
import { openDatabase } from '../src/infrastructure/persistence/database';
import { PostgresAuditChainSealer } from '../src/infrastructure/persistence/repositories/postgres-audit-chain-sealer';
import { PostgresAuditLog } from '../src/infrastructure/persistence/repositories/postgres-audit-log';
import { AuditAppender } from '../src/infrastructure/persistence/tables/audit-log';
import { PostgresAuditReader } from '../src/infrastructure/persistence/repositories/postgres-audit-reader';
import { Ed25519CheckpointSigner, Ed25519SignatureVerifier } from '../src/infrastructure/security/ed25519-checkpoint-keys';
import { SystemClock } from '../src/infrastructure/system-clock';
import { speedAround, speedSentence } from './support/machine-speed';
import { writeJson } from './support/results';

/**
 * `npm run bench:audit-verify`: how long the admin's verify takes on a log of AUDIT_VERIFY_ROWS
 * (default 1 000 000) rows, on a PostgreSQL database of its own (created, then dropped):
 * - from the newest checkpoint, the default: just after a checkpoint, and at its worst, with
 *   AUDIT_CHECKPOINT_ROWS − 1 rows sealed after it (target ≤ 300 ms);
 * - the whole chain and every checkpoint (`?full=true`);
 * - sealing a batch of 300 and of 4 000 rows (fastest of three and of two): linear work takes
 *   about 13× as long for 13× the rows; the first sealer took about 50× (migration 1766361600000).
 * Each verify is the use case the route runs, without the audit row of the read: it seals
 * first (nothing left to seal, here), then checks. The rows go in with INSERT … SELECT
 * generate_series, through audit_log's queueing trigger, and are sealed with checkpoints every
 * 10 000 links, as a server does; the database is vacuumed before measuring, as autovacuum
 * would have done on a log that grew over months.
 * Prints a table and writes bench/results/audit-verify.{json,md}.
 *
 * BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres) is the server;
 * AUDIT_VERIFY_RUNS (default 5) the runs of each checkpoint case, AUDIT_VERIFY_FULL_RUNS (2)
 * of the full walk.
 */
const ADMIN_URL = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const ROWS = Number(process.env.AUDIT_VERIFY_ROWS || 1_000_000);
const RUNS = Number(process.env.AUDIT_VERIFY_RUNS || 5);
const FULL_RUNS = Number(process.env.AUDIT_VERIFY_FULL_RUNS || 2);
const CHECKPOINT_ROWS = 10_000;
const TARGET_MS = 300;
const RESULTS = join(__dirname, '..', '..', 'bench', 'results');

/** Counts nothing: the benchmark measures the database, not the metrics. */
const noMetrics = new Proxy({}, { get: () => () => undefined }) as Metrics;

interface Timing {
  readonly case: string;
  readonly checkedRows: number;
  readonly ms: number[];
  /** Of the fastest run: sealing first, reading the newest checkpoint, the walk and the strays' look-up. */
  readonly parts?: Record<string, number>;
}

async function insertRows(database: DataSource, rows: number): Promise<void> {
  const actorId = randomUUID();
  // 100 000 rows per statement: one transition table and one queue insert each.
  for (let done = 0; done < rows; done += 100_000) {
    await database.query(
      `INSERT INTO audit_log (source, actor_id, tool, arguments, status, duration_ms)
       SELECT 'chat', $1, 'add_task', jsonb_build_object('title', 'buy milk ' || n), 'succeeded', 3 FROM generate_series(1, $2::int) n`,
      [actorId, Math.min(100_000, rows - done)],
    );
  }
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, Number((performance.now() - started).toFixed(1))];
}

async function main(): Promise<void> {
  const readSpeed = speedAround();
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const name = `bridle_bench_audit_verify_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  let database: DataSource | undefined;
  try {
    database = await openDatabase({ kind: 'server', url: url.toString() });
    const dataSource = database;
    const clock = new SystemClock();
    const signer = new Ed25519CheckpointSigner(
      generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
    );
    const checkpoints = new AuditCheckpoints(
      signer,
      new Ed25519SignatureVerifier(),
      clock,
      {
        interval: { rows: CHECKPOINT_ROWS, ms: 24 * 3_600_000 },
        origin: 'bench.invalid/audit',
      },
      merkleHasher,
    );
    const seal = new SealAuditChainUseCase(new PostgresAuditChainSealer(dataSource), checkpoints);
    const reader = new PostgresAuditReader(dataSource);
    const recorder = new AdminReadRecorder(new PostgresAuditLog(dataSource, new AuditAppender(noMetrics)), clock);
    const sut = new VerifyAuditChainUseCase(reader, recorder, seal, checkpoints, new PostgresAuditTree(dataSource), merkleHasher);

    const [, insertMs] = await timed(() => insertRows(database!, ROWS));
    const [sealed, sealMs] = await timed(() => seal.run());
    await dataSource.query(`VACUUM ANALYZE audit_log`);
    await dataSource.query(`VACUUM ANALYZE audit_chain`);
    await dataSource.query(`VACUUM ANALYZE audit_unsealed`);
    await dataSource.query(`VACUUM ANALYZE audit_checkpoints`);
    process.stdout.write(`${ROWS} rows inserted in ${insertMs} ms, ${sealed} sealed in ${sealMs} ms\n`);

    const fromCheckpoint = async (label: string): Promise<Timing> => {
      const ms: number[] = [];
      let checkedRows = 0;
      let parts: Record<string, number> | undefined;
      for (let run = 0; run < RUNS; run++) {
        const [report, total] = await timed(() => sut.verify(false));
        if (!report.verified) throw new Error(`verify failed: ${JSON.stringify(report)}`);
        checkedRows = report.checkedRows;
        ms.push(total);
        if (total <= Math.min(...ms)) parts = await partsOf();
      }
      return { case: label, checkedRows, ms, parts };
    };
    /** The steps of a verify from the newest checkpoint, one by one. */
    const partsOf = async (): Promise<Record<string, number>> => {
      const [, sealFirst] = await timed(() => seal.run({ waitForOtherSealer: true }));
      const [latest, newestCheckpoint] = await timed(() => reader.latestCheckpoint());
      const [, walkAndStrays] = await timed(() => reader.verify({ position: latest!.position, seq: latest!.seq, hash: latest!.headHash }));
      const [, strays] = await timed(() =>
        dataSource.query(
          `SELECT count(*) FROM audit_log a WHERE a.seq > $1
             AND NOT EXISTS (SELECT 1 FROM audit_chain c WHERE c.seq = a.seq)
             AND NOT EXISTS (SELECT 1 FROM audit_unsealed u WHERE u.seq = a.seq)`,
          [latest!.seq],
        ),
      );
      return { sealFirst, newestCheckpoint, walkAndStrays, strays };
    };

    const timings: Timing[] = [];
    timings.push(await fromCheckpoint('from the newest checkpoint, just written'));
    await insertRows(database, CHECKPOINT_ROWS - 1);
    await seal.run();
    await dataSource.query(`VACUUM ANALYZE audit_chain`);
    timings.push(await fromCheckpoint(`from the newest checkpoint, ${CHECKPOINT_ROWS - 1} links after it (its worst)`));
    const full: number[] = [];
    let fullRows = 0;
    for (let run = 0; run < FULL_RUNS; run++) {
      const [report, total] = await timed(() => sut.verify(true));
      if (!report.verified) throw new Error(`full verify failed: ${JSON.stringify(report)}`);
      fullRows = report.checkedRows;
      full.push(total);
    }
    timings.push({ case: 'full (?full=true): every link and every checkpoint', checkedRows: fullRows, ms: full });

    const batchSealer = new PostgresAuditChainSealer(dataSource);
    const sealBatchMs = async (rows: number): Promise<number> => {
      await insertRows(database!, rows);
      const [sealedRows, ms] = await timed(() => batchSealer.sealBatch(rows));
      if (sealedRows !== rows) throw new Error(`sealed ${sealedRows} of ${rows}`);
      return ms;
    };
    const small = Math.min(await sealBatchMs(300), await sealBatchMs(300), await sealBatchMs(300));
    const large = Math.min(await sealBatchMs(4000), await sealBatchMs(4000));
    const batches = { smallRows: 300, smallMs: small, largeRows: 4000, largeMs: large, ratio: Number((large / small).toFixed(1)) };

    const worst = Math.min(...timings[1].ms);
    const target = {
      name: `verify from the newest checkpoint ≤ ${TARGET_MS} ms at ${ROWS} rows`,
      worstCaseMs: worst,
      met: worst <= TARGET_MS,
    };
    const speed = readSpeed();
    const table = [
      `Audit verify on PostgreSQL, ${ROWS} rows, checkpoints every ${CHECKPOINT_ROWS} links (${new Date().toISOString()}, node ${process.version}, ${cpus().length} cores, load average at the end ${loadavg()[0].toFixed(1)}). ${speedSentence(speed)}`,
      `Filling: ${insertMs} ms to insert, ${sealMs} ms to seal (with ${Math.floor(ROWS / CHECKPOINT_ROWS)} checkpoints).`,
      '',
      '| case | links checked | fastest ms | slowest ms | parts of the fastest (ms) |',
      '|---|---|---|---|---|',
      ...timings.map(
        (timing) =>
          `| ${timing.case} | ${timing.checkedRows} | ${Math.min(...timing.ms)} | ${Math.max(...timing.ms)} | ${
            timing.parts
              ? Object.entries(timing.parts)
                  .map(([part, ms]) => `${part} ${ms}`)
                  .join(', ')
              : ''
          } |`,
      ),
      '',
      `Sealing a batch: ${batches.smallRows} rows in ${batches.smallMs} ms, ${batches.largeRows} in ${batches.largeMs} ms: ${batches.ratio}× the time for 13.3× the rows (linear: about 13×; the first sealer: about 50×).`,
      '',
      `Target: ${target.name}: ${target.met ? 'met' : 'missed'} (${worst} ms at its worst).`,
      '',
    ].join('\n');
    process.stdout.write(`${table}\n`);
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, 'audit-verify.md'), `${table}\nCommand: \`npm run bench:audit-verify\`\n`);
    await writeJson(join(RESULTS, 'audit-verify.json'), {
      date: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      loadAverage: loadavg(),
      machineSpeed: speed,
      rows: ROWS,
      checkpointRows: CHECKPOINT_ROWS,
      insertMs,
      sealMs,
      timings,
      batches,
      target,
    });
  } finally {
    await database?.destroy();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
  process.exit(1);
});
