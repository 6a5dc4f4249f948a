import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import type { ToolAuditEntry } from '../src/application/audit/ports/audit-log.port';
import type { Metrics } from '../src/application/shared/ports/metrics.port';
import { SealAuditChainUseCase } from '../src/application/audit/seal-audit-chain.use-case';
import type { DataSource } from 'typeorm';
import { openDatabase } from '../src/infrastructure/persistence/database';
import { PostgresAuditChainSealer } from '../src/infrastructure/persistence/repositories/postgres-audit-chain-sealer';
import { AuditAppender } from '../src/infrastructure/persistence/tables/audit-log';
import { speedAround, speedSentence } from './support/machine-speed';
import { writeJson } from './support/results';

/**
 * `npm run bench:audit-append`: audit rows appended per second on PostgreSQL by 1 and by 8
 * concurrent writers in one process (each awaiting its row's commit before the next, as a
 * chat turn awaits its pending row), through the one code path that writes audit_log, on two
 * databases of its own side by side, three ways:
 * - before: the schema as it was before migration 1766188800000, whose BEFORE INSERT
 *   trigger takes one advisory lock per append until commit (the migration's down undone),
 *   each row its own statement and transaction (each writer has an appender of its own);
 * - sealed, row by row: the current schema (appends queued, no lock), with the sealer running
 *   beside the writers every 500 ms as every process runs it, each row still alone, as
 *   writers in separate processes append;
 * - sealed, group commit: the same, the writers sharing one appender as a process's turns
 *   do, so that rows arriving while others are written share their statement and commit.
 * Rounds alternate (before, row by row, group commit, before, …) so the machine's load hits
 * all alike.
 * Prints a table and writes bench/results/audit-append.{json,md}.
 *
 * AUDIT_APPEND_SECONDS (default 5) is each measured block; AUDIT_APPEND_ROUNDS (default 3)
 * the rounds; BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres) the server.
 */
const ADMIN_URL = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.AUDIT_APPEND_SECONDS || 5);
const ROUNDS = Number(process.env.AUDIT_APPEND_ROUNDS || 3);
const RESULTS = join(__dirname, '..', '..', 'bench', 'results');
const SEALING_MIGRATION = 'AuditChainSealing1766188800000';

/** Counts nothing: the benchmark measures the database, not the metrics. */
const noMetrics = new Proxy({}, { get: () => () => undefined }) as Metrics;

type Schema = 'before' | 'after' | 'group';
const LABEL: Record<Schema, string> = {
  before: 'before: chain trigger with a lock',
  after: 'sealed in batches, row by row',
  group: 'sealed in batches, group commit',
};
interface Block {
  readonly schema: Schema;
  readonly writers: number;
  readonly appends: number;
  readonly seconds: number;
  readonly latencies: number[];
}

function entry(writer: number, i: number): ToolAuditEntry {
  return {
    source: 'chat',
    actorId: randomUUID(),
    conversationId: randomUUID(),
    decisionId: randomUUID(),
    tool: 'add_task',
    arguments: { title: `buy milk ${writer}-${i}` },
    securityEvents: [],
  };
}

async function createDatabase(admin: Client, schema: Exclude<Schema, 'group'>): Promise<{ name: string; database: DataSource }> {
  const name = `bridle_bench_audit_${schema}_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const database = await openDatabase({ kind: 'server', url: url.toString() });
  if (schema === 'before') {
    while (database.migrations.length > 0) {
      const [last] = await database.query<{ name: string }[]>(`SELECT name FROM migrations ORDER BY id DESC LIMIT 1`);
      await database.undoLastMigration();
      if (last.name === SEALING_MIGRATION) break;
    }
  }
  return { name, database };
}

async function measure(database: DataSource, schema: Schema, writers: number): Promise<Block> {
  const shared = new AuditAppender(noMetrics);
  const latencies: number[] = [];
  const deadline = performance.now() + SECONDS * 1000;
  const sealing = schema === 'before' ? null : startSealer(database);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      const appender = schema === 'group' ? shared : new AuditAppender(noMetrics);
      for (let i = 0; performance.now() < deadline; i++) {
        const t0 = performance.now();
        await appender.append(database, entry(writer, i), { status: 'pending' }, null);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await sealing?.stop();
  return { schema, writers, appends: latencies.length, seconds, latencies };
}

/** The sealer as every process runs it: all that is queued, every 500 ms. */
function startSealer(database: DataSource): { stop: () => Promise<void> } {
  const seal = new SealAuditChainUseCase(new PostgresAuditChainSealer(database));
  let running = true;
  const loop = (async () => {
    while (running) {
      await seal.run();
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      await seal.run();
    },
  };
}

function summary(blocks: readonly Block[]) {
  const latencies = blocks.flatMap((block) => block.latencies).sort((a, b) => a - b);
  const at = (q: number) => Number(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(2));
  const appends = blocks.reduce((sum, block) => sum + block.appends, 0);
  const seconds = blocks.reduce((sum, block) => sum + block.seconds, 0);
  const perBlock = blocks.map((block) => Math.round(block.appends / block.seconds));
  return {
    appendsPerSecond: Math.round(appends / seconds),
    slowestBlock: Math.min(...perBlock),
    fastestBlock: Math.max(...perBlock),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    appends,
  };
}

async function main(): Promise<void> {
  const readSpeed = speedAround();
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const databases: { name: string; database: DataSource }[] = [];
  try {
    const before = await createDatabase(admin, 'before');
    databases.push(before);
    const after = await createDatabase(admin, 'after');
    databases.push(after);
    const blocks: Block[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const writers of [1, 8]) {
        for (const [schema, { database }] of [
          ['before', before],
          ['after', after],
          ['group', after],
        ] as const) {
          blocks.push(await measure(database, schema, writers));
        }
      }
    }
    const rows = ([1, 8] as const).flatMap((writers) =>
      (['before', 'after', 'group'] as const).map((schema) => ({
        schema,
        writers,
        ...summary(blocks.filter((block) => block.schema === schema && block.writers === writers)),
      })),
    );
    const perSecond = (schema: Schema) => rows.find((row) => row.schema === schema && row.writers === 8)!.appendsPerSecond;
    const ratio = (schema: Schema) => Number((perSecond(schema) / perSecond('before')).toFixed(2));
    // The target is the service's appender (group commit); row by row is what writers in separate processes get.
    const target = {
      name: 'audit appends from 8 concurrent writers ≥ 5× before',
      ratio: ratio('group'),
      rowByRowRatio: ratio('after'),
      met: ratio('group') >= 5,
    };
    const speed = readSpeed();
    const table = [
      `Audit appends on PostgreSQL, ${ROUNDS} rounds of ${SECONDS} s blocks, the three alternating (${new Date().toISOString()}, node ${process.version}, ${cpus().length} cores, load average at the end ${loadavg()[0].toFixed(1)}). ${speedSentence(speed)}`,
      '',
      '| schema | writers | appends/s | slowest–fastest block | p50 ms | p99 ms |',
      '|---|---|---|---|---|---|',
      ...rows.map(
        (row) =>
          `| ${LABEL[row.schema]} | ${row.writers} | ${row.appendsPerSecond} | ${row.slowestBlock}–${row.fastestBlock} | ${row.p50Ms} | ${row.p99Ms} |`,
      ),
      '',
      `8 writers, ÷ before: group commit ${target.ratio}× (target ≥ 5×: ${target.met ? 'met' : 'missed'}); row by row ${target.rowByRowRatio}×`,
      '',
    ].join('\n');
    process.stdout.write(`${table}\n`);
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, 'audit-append.md'), `${table}\nCommand: \`npm run bench:audit-append\`\n`);
    await writeJson(join(RESULTS, 'audit-append.json'), {
      date: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      loadAverage: loadavg(),
      machineSpeed: speed,
      secondsPerBlock: SECONDS,
      rounds: ROUNDS,
      rows,
      target,
    });
  } finally {
    for (const { name, database } of databases) {
      await database.destroy();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
    await admin.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
  process.exit(1);
});
