import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { consistencyProofFromTiles, inclusionProofFromTiles, treeRootFromTiles } from '../src/application/audit/audit-tree-reads';
import { type Hash, verifyConsistency, verifyInclusion } from '../src/domain/audit/merkle';
import { buildTiles } from '../src/domain/audit/merkle-tiles';
import { openDatabase } from '../src/infrastructure/persistence/database';
import { AuditMerkleTree1767981600000 } from '../src/infrastructure/persistence/migrations/1767981600000-audit-merkle-tree';
import { PostgresAuditTree } from '../src/infrastructure/persistence/repositories/postgres-audit-tree';
import { merkleHasher } from '../src/infrastructure/security/sha256';
import { writeJson } from './support/results';

/**
 * `npm run bench:audit-tree`, on a PostgreSQL server (BENCH_PG_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres; it must run on this machine, since the CPU of
 * its backends is read from /proc), in databases of its own, dropped at the end:
 *
 * 1. Proofs. A tree of 1 000 000 synthetic leaves (random link hashes) written straight into
 *    `audit_tree_tiles` as the sealer would have written them (buildTiles): sealing a million
 *    real rows takes minutes and makes the same tiles. Then, at 10⁴, 10⁵ and 10⁶ leaves,
 *    AUDIT_TREE_PROOFS (200) inclusion proofs of random leaves and as many consistency proofs
 *    from a random smaller size: each read from the tiles as the service reads them (one
 *    statement) and computed, then verified; their size and times.
 * 2. Appending with the tree and without, side by side: two databases, one with migration
 *    1767981600000 undone (the sealer of before). Rounds alternate between them. In each,
 *    rows are appended one statement each (as a turn's rows are), then sealed by calling
 *    `audit_seal(b)` until the queue is empty, for batches of b = 2 (a quiet service seals a
 *    turn's rows alone), 50 and 1 000 rows. PostgreSQL CPU is the user + system time of the
 *    backend process that ran the statements (/proc/<pid>/stat, 10 ms ticks), over all of a
 *    measurement's statements, divided by its rows.
 * Writes bench/results/audit-tree.{json,md}.
 */
const ADMIN_URL = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const PROOFS = Number(process.env.AUDIT_TREE_PROOFS || 200);
const ROUNDS = Number(process.env.AUDIT_TREE_ROUNDS || 3);
const SIZES = [10_000, 100_000, 1_000_000];
const SEAL_BATCHES = [
  { batch: 2, rows: 3_000 },
  { batch: 50, rows: 10_000 },
  { batch: 1_000, rows: 20_000 },
];
const RESULTS = join(__dirname, '..', '..', 'bench', 'results');
const TICK_MS = 10;

async function createDatabase(admin: Client, label: string): Promise<{ name: string; url: string; database: DataSource }> {
  const name = `bridle_bench_tree_${label}_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), database: await openDatabase({ kind: 'server', url: url.toString() }) };
}

/** CPU time (user + system) of a backend so far, in ms. */
function backendCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

function stats(values: readonly number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: round(at(0.5)), p95: round(at(0.95)), max: round(sorted[sorted.length - 1]) };
}

const round = (value: number, digits = 3) => Number(value.toFixed(digits));

async function fillTiles(database: DataSource, leaves: number): Promise<void> {
  const leafHashes: Hash[] = [];
  for (let i = 0; i < leaves; i++) leafHashes.push(merkleHasher.leaf(randomBytes(32)));
  const tiles = [...buildTiles(merkleHasher, leafHashes)];
  for (let i = 0; i < tiles.length; i += 500) {
    const chunk = tiles.slice(i, i + 500).map(([name, hashes]) => [...name.split('/').map(Number), Buffer.from(hashes)] as const);
    await database.query(
      `INSERT INTO audit_tree_tiles (level, idx, hashes) SELECT * FROM unnest($1::smallint[], $2::bigint[], $3::bytea[])`,
      [chunk.map((tile) => tile[0]), chunk.map((tile) => tile[1]), chunk.map((tile) => tile[2])],
    );
  }
}

async function proofs(database: DataSource) {
  const tree = new PostgresAuditTree(database);
  const rows = [];
  for (const size of SIZES) {
    const root = await treeRootFromTiles(tree, merkleHasher, size);
    const inclusion = { ms: [] as number[], verifyMs: [] as number[], length: [] as number[] };
    const consistency = { ms: [] as number[], verifyMs: [] as number[], length: [] as number[] };
    for (let i = 0; i < PROOFS; i++) {
      const index = Math.floor(Math.random() * size);
      let t0 = performance.now();
      const proof = await inclusionProofFromTiles(tree, merkleHasher, index, size);
      inclusion.ms.push(performance.now() - t0);
      inclusion.length.push(proof.length);
      // The leaf's hash as the tiles hold it.
      const [leaf] = await inclusionLeaf(tree, index);
      t0 = performance.now();
      if (!verifyInclusion(merkleHasher, index, size, leaf, proof, root)) throw new Error(`inclusion ${index}/${size} does not verify`);
      inclusion.verifyMs.push(performance.now() - t0);

      const first = 1 + Math.floor(Math.random() * (size - 1));
      t0 = performance.now();
      const path = await consistencyProofFromTiles(tree, merkleHasher, first, size);
      consistency.ms.push(performance.now() - t0);
      consistency.length.push(path.length);
      const firstRoot = await treeRootFromTiles(tree, merkleHasher, first);
      t0 = performance.now();
      if (!verifyConsistency(merkleHasher, first, size, path, firstRoot, root))
        throw new Error(`consistency ${first}/${size} does not verify`);
      consistency.verifyMs.push(performance.now() - t0);
    }
    const summary = (what: typeof inclusion) => ({
      hashes: { mean: round(what.length.reduce((a, b) => a + b, 0) / what.length.length, 1), max: Math.max(...what.length) },
      bytesMax: 32 * Math.max(...what.length),
      ms: stats(what.ms),
      verifyMs: stats(what.verifyMs),
    });
    rows.push({ size, log2: round(Math.log2(size), 1), inclusion: summary(inclusion), consistency: summary(consistency) });
    process.stdout.write(`${JSON.stringify(rows[rows.length - 1])}\n`);
  }
  return rows;
}

async function inclusionLeaf(tree: PostgresAuditTree, index: number): Promise<Hash[]> {
  const tile = (await tree.tiles([{ level: 0, index: Math.floor(index / 256) }])).values().next().value!;
  return [tile.subarray((index % 256) * 32, (index % 256) * 32 + 32)];
}

/** Appends `rows` rows one statement each, then seals them `batch` at a time: the backend's CPU for each part. */
async function appendAndSeal(url: string, rows: number, batch: number) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const [{ pid }] = (await client.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`)).rows;
    const actor = randomUUID();
    const insert = `INSERT INTO audit_log (source, actor_id, tool, arguments, status) VALUES ('chat', $1, 'add_task', $2, 'succeeded')`;
    let cpu = backendCpuMs(pid);
    for (let i = 0; i < rows; i++) await client.query(insert, [actor, { title: `buy milk ${i}` }]);
    const appendCpu = backendCpuMs(pid) - cpu;
    cpu = backendCpuMs(pid);
    const started = performance.now();
    let batches = 0;
    for (;;) {
      const { sealed } = (await client.query<{ sealed: number }>(`SELECT audit_seal($1::int) AS sealed`, [batch])).rows[0];
      if (sealed === 0) break;
      batches += 1;
    }
    const sealCpu = backendCpuMs(pid) - cpu;
    return {
      appendCpuMsPerRow: appendCpu / rows,
      sealCpuMsPerRow: sealCpu / rows,
      sealCpuMsPerBatch: sealCpu / batches,
      sealWallMs: performance.now() - started,
    };
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const made: { name: string; database: DataSource }[] = [];
  try {
    const proofsDb = await createDatabase(admin, 'proofs');
    made.push(proofsDb);
    let t0 = performance.now();
    await fillTiles(proofsDb.database, SIZES[SIZES.length - 1]);
    process.stdout.write(`filled the tiles of ${SIZES[SIZES.length - 1]} leaves in ${Math.round(performance.now() - t0)} ms\n`);
    const proofRows = await proofs(proofsDb.database);

    const withTree = await createDatabase(admin, 'with');
    const without = await createDatabase(admin, 'without');
    made.push(withTree, without);
    const runner = without.database.createQueryRunner();
    await new AuditMerkleTree1767981600000().down(runner);
    await runner.release();
    const results: {
      batch: number;
      tree: boolean;
      round: number;
      appendCpuMsPerRow: number;
      sealCpuMsPerRow: number;
      sealCpuMsPerBatch: number;
      sealWallMs: number;
    }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const { batch, rows } of SEAL_BATCHES) {
        for (const [tree, db] of round % 2 === 1
          ? ([
              [true, withTree],
              [false, without],
            ] as const)
          : ([
              [false, without],
              [true, withTree],
            ] as const)) {
          t0 = performance.now();
          const measured = await appendAndSeal(db.url, rows, batch);
          results.push({ batch, tree, round, ...measured });
          process.stdout.write(`${JSON.stringify({ batch, tree, round, ...measured, ms: Math.round(performance.now() - t0) })}\n`);
        }
      }
    }
    const sideBySide = SEAL_BATCHES.map(({ batch }) => {
      const of = (tree: boolean) => results.filter((r) => r.batch === batch && r.tree === tree);
      const median = (values: number[]) => stats(values).median;
      const side = (tree: boolean) => ({
        appendCpuMsPerRow: median(of(tree).map((r) => r.appendCpuMsPerRow)),
        sealCpuMsPerRow: median(of(tree).map((r) => r.sealCpuMsPerRow)),
        sealCpuMsPerBatch: median(of(tree).map((r) => r.sealCpuMsPerBatch)),
      });
      return { batch, with: side(true), without: side(false) };
    });
    const machine = { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg().map((load) => round(load, 2)) };
    mkdirSync(RESULTS, { recursive: true });
    await writeJson(join(RESULTS, 'audit-tree.json'), {
      date: new Date().toISOString(),
      machine,
      proofs: proofRows,
      append: results,
      sideBySide,
    });
    writeFileSync(join(RESULTS, 'audit-tree.md'), markdown(new Date(), machine, proofRows, sideBySide));
    process.stdout.write(`${readFileSync(join(RESULTS, 'audit-tree.md'), 'utf8')}\n`);
  } finally {
    for (const { name, database } of made) {
      await database.destroy();
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    }
    await admin.end();
  }
}

function markdown(
  date: Date,
  machine: { cpus: number; model?: string; loadavg: number[] },
  proofRows: Awaited<ReturnType<typeof proofs>>,
  sideBySide: { batch: number; with: Record<string, number>; without: Record<string, number> }[],
): string {
  const lines = [
    `# Audit Merkle tree (${date.toISOString()}, ${machine.cpus} × ${machine.model ?? '?'}, load ${machine.loadavg.join(' ')})`,
    '',
    `Proofs, ${PROOFS} of each per size (read from the tiles in one statement, computed, verified):`,
    '',
    '| leaves | log₂ | inclusion: hashes (max), bytes | read + compute median / p95 ms | verify median ms | consistency: hashes (max) | read + compute median / p95 ms | verify median ms |',
    '|---|---|---|---|---|---|---|---|',
    ...proofRows.map(
      (row) =>
        `| ${row.size.toLocaleString('en')} | ${row.log2} | ${row.inclusion.hashes.mean} (${row.inclusion.hashes.max}), ${row.inclusion.bytesMax} | ` +
        `${row.inclusion.ms.median} / ${row.inclusion.ms.p95} | ${row.inclusion.verifyMs.median} | ${row.consistency.hashes.mean} (${row.consistency.hashes.max}) | ` +
        `${row.consistency.ms.median} / ${row.consistency.ms.p95} | ${row.consistency.verifyMs.median} |`,
    ),
    '',
    `Appending and sealing, PostgreSQL backend CPU (/proc, user + system), medians of ${ROUNDS} alternating rounds:`,
    '',
    '| seal batch | append ms/row without / with | seal ms/row without / with | seal ms/batch without / with | seal: extra CPU |',
    '|---|---|---|---|---|',
    ...sideBySide.map(
      (row) =>
        `| ${row.batch} | ${row.without.appendCpuMsPerRow} / ${row.with.appendCpuMsPerRow} | ${row.without.sealCpuMsPerRow} / ${row.with.sealCpuMsPerRow} | ` +
        `${row.without.sealCpuMsPerBatch} / ${row.with.sealCpuMsPerBatch} | ${round((row.with.sealCpuMsPerRow / row.without.sealCpuMsPerRow - 1) * 100, 1)} % |`,
    ),
    '',
  ];
  return lines.join('\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exitCode = 1;
});
