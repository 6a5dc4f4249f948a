import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { AuditCheckpoints } from '../src/application/audit/audit-checkpoints';
import { ExportAuditPackUseCase } from '../src/application/audit/export-audit-pack.use-case';
import { SealAuditChainUseCase } from '../src/application/audit/seal-audit-chain.use-case';
import { runAuditExport } from '../src/interfaces/cli/audit-export-command';
import { openDatabase } from '../src/infrastructure/persistence/database';
import { PostgresAuditChainSealer } from '../src/infrastructure/persistence/repositories/postgres-audit-chain-sealer';
import { PostgresAuditEvidence } from '../src/infrastructure/persistence/repositories/postgres-audit-evidence';
import { PostgresAuditReader } from '../src/infrastructure/persistence/repositories/postgres-audit-reader';
import { PostgresAuditTree } from '../src/infrastructure/persistence/repositories/postgres-audit-tree';
import { Ed25519CheckpointSigner, Ed25519SignatureVerifier } from '../src/infrastructure/security/ed25519-checkpoint-keys';
import { merkleHasher } from '../src/infrastructure/security/sha256';
import { SystemClock } from '../src/infrastructure/system-clock';
import { writeJson } from './support/results';

/**
 * `npm run bench:audit-pack`: an export pack of AUDIT_PACK_ROWS
 * (100 000) rows checked by the offline verifier, `node verifier/bridle-audit-verify.mjs <pack>
 * --public-key <pem>`, in a process of its own with no database and no Bridle process, every
 * signature, link and the tree's roots: ≤ 10 s. The rows go into a PostgreSQL database of its
 * own (BENCH_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres; dropped at the end)
 * by one `INSERT … SELECT generate_series` through the queueing trigger, each a tool call with
 * a few arguments, and are sealed with a checkpoint every 10 000 links; the pack is written by
 * the operator's export (admin.js audit-export). Then AUDIT_PACK_RUNS (3) verifier runs, timed
 * from spawn to exit. Writes bench/results/audit-pack.{json,md}.
 */
const ADMIN_URL = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const ROWS = Number(process.env.AUDIT_PACK_ROWS || 100_000);
const RUNS = Number(process.env.AUDIT_PACK_RUNS || 3);
const CHECKPOINT_ROWS = 10_000;
const TARGET_MS = 10_000;
const ROOT = join(__dirname, '..', '..');
const RESULTS = join(ROOT, 'bench', 'results');

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, Math.round(performance.now() - started)];
}

async function fill(database: DataSource): Promise<void> {
  await database.query(
    `INSERT INTO audit_log (source, actor_id, conversation_id, decision_id, tool, arguments, status, result, duration_ms)
     SELECT 'chat', $1, $2, gen_random_uuid(), 'add_task', jsonb_build_object('title', 'Call the dentist about appointment ' || n),
            'succeeded', jsonb_build_object('number', n, 'title', 'Call the dentist about appointment ' || n), 3
     FROM generate_series(1, $3::int) n`,
    [randomUUID(), randomUUID(), ROWS],
  );
}

async function main(): Promise<void> {
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const name = `bridle_bench_audit_pack_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const folder = mkdtempSync(join(tmpdir(), 'bridle-pack-'));
  let database: DataSource | undefined;
  try {
    database = await openDatabase({ kind: 'server', url: url.toString() });
    const keys = generateKeyPairSync('ed25519');
    const publicKey = join(folder, 'audit-key.pem');
    writeFileSync(publicKey, keys.publicKey.export({ format: 'pem', type: 'spki' }));
    const clock = new SystemClock();
    const checkpoints = new AuditCheckpoints(
      new Ed25519CheckpointSigner(keys.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string),
      new Ed25519SignatureVerifier(),
      clock,
      { interval: { rows: CHECKPOINT_ROWS, ms: 24 * 3_600_000 }, origin: 'bench.invalid/audit' },
      merkleHasher,
    );
    const seal = new SealAuditChainUseCase(new PostgresAuditChainSealer(database), checkpoints);
    const [, fillMs] = await timed(() => fill(database!));
    const [sealed, sealMs] = await timed(() => seal.run());
    const exporter = new ExportAuditPackUseCase(
      new PostgresAuditEvidence(database),
      new PostgresAuditReader(database),
      new PostgresAuditTree(database),
      merkleHasher,
      clock,
    );
    const pack = join(folder, 'pack');
    const [exported, exportMs] = await timed(() =>
      runAuditExport({ name: 'audit-export', from: undefined, to: undefined, out: pack }, { get: () => exporter } as never),
    );
    const packBytes = statSync(join(pack, 'rows.ndjson')).size;
    process.stdout.write(`${ROWS} rows in ${fillMs} ms, ${sealed} sealed in ${sealMs} ms; ${exported} (${exportMs} ms)\n`);

    const runs: { wallMs: number; verifierMs: number }[] = [];
    let report: { ok: boolean; rows: number; committed: number; checkpoints: number; checked: string[] } | undefined;
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      // A bare environment: the verifier needs nothing but Node.js, the pack and the key.
      const child = spawnSync(
        process.execPath,
        [join(ROOT, 'verifier', 'bridle-audit-verify.mjs'), pack, '--public-key', publicKey, '--json'],
        {
          env: { PATH: process.env.PATH ?? '' },
          encoding: 'utf8',
        },
      );
      const wallMs = Math.round(performance.now() - started);
      report = JSON.parse(child.stdout) as typeof report & { ms: number };
      if (child.status !== 0 || !report.ok) throw new Error(`not verified: ${child.stdout} ${child.stderr}`);
      runs.push({ wallMs, verifierMs: (report as unknown as { ms: number }).ms });
      process.stdout.write(`run ${run + 1}: ${wallMs} ms from spawn to exit (${runs.at(-1)!.verifierMs} ms checking)\n`);
    }
    const results = {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg().map((load) => Number(load.toFixed(2))) },
      rows: ROWS,
      checkpoints: report!.checkpoints,
      committedRows: report!.committed,
      rowsFileBytes: packBytes,
      fillMs,
      sealMs,
      exportMs,
      runs,
      targetMs: TARGET_MS,
      met: runs.every((run) => run.wallMs <= TARGET_MS),
    };
    mkdirSync(RESULTS, { recursive: true });
    await writeJson(join(RESULTS, 'audit-pack.json'), results);
    writeFileSync(
      join(RESULTS, 'audit-pack.md'),
      `# Offline verifier on an export pack (npm run bench:audit-pack)\n\n${results.date}, ${results.machine.cpus} × ${results.machine.model}, load ${results.machine.loadavg.join(' ')}\n\n` +
        `| rows | checkpoints | rows.ndjson | export | verifier, spawn to exit (ms) | of which checking (ms) |\n|---|---|---|---|---|---|\n` +
        `| ${ROWS} | ${results.checkpoints} | ${(packBytes / 1e6).toFixed(1)} MB | ${exportMs} ms | ${runs.map((r) => r.wallMs).join(', ')} | ${runs.map((r) => r.verifierMs).join(', ')} |\n\n` +
        `Target ≤ ${TARGET_MS} ms: ${results.met ? 'met' : 'NOT met'}.\n`,
    );
  } finally {
    await database?.destroy();
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.end();
    rmSync(folder, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
