import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import type { ToolAuditEntry } from '../src/application/agent/ports/audit-log.port';
import { openDatabase } from '../src/infrastructure/persistence/database';
import { AuditAppender } from '../src/infrastructure/persistence/repositories/postgres-audit-log';
import type { Metrics } from '../src/application/shared/ports/metrics.port';

/**
 * `npm run bench:audit-append`: audit rows appended per second on PostgreSQL by 1 and by 8
 * concurrent writers (each its own connection, each row its own transaction, as a chat
 * turn's pending row is), through the one code path that writes audit_log. A database of
 * its own, dropped at the end. Prints one line per writer count and writes
 * bench/results/audit-append.json.
 *
 * AUDIT_APPEND_SECONDS (default 10) is the length of each measured phase; BENCH_PG_URL
 * (default postgres://postgres@127.0.0.1:5432/postgres) the server to use.
 */
const ADMIN_URL = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.AUDIT_APPEND_SECONDS || 10);
const RESULTS = join(__dirname, '..', '..', 'bench', 'results');

/** Counts nothing: the benchmark measures the database, not the metrics. */
const noMetrics = new Proxy({}, { get: () => () => undefined }) as Metrics;

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

async function main(): Promise<void> {
  const name = `bridle_bench_audit_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const database = await openDatabase({ kind: 'server', url: url.toString() });
  const appender = new AuditAppender(noMetrics);
  const results: { writers: number; appends: number; seconds: number; appendsPerSecond: number; p50Ms: number; p99Ms: number }[] = [];
  try {
    for (const writers of [1, 8]) {
      const latencies: number[] = [];
      const deadline = performance.now() + SECONDS * 1000;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: writers }, async (_, writer) => {
          for (let i = 0; performance.now() < deadline; i++) {
            const t0 = performance.now();
            await appender.append(database.dataSource, entry(writer, i), { status: 'pending' }, null);
            latencies.push(performance.now() - t0);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      const at = (q: number) => Number(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(2));
      const result = {
        writers,
        appends: latencies.length,
        seconds: Number(seconds.toFixed(1)),
        appendsPerSecond: Math.round(latencies.length / seconds),
        p50Ms: at(0.5),
        p99Ms: at(0.99),
      };
      results.push(result);
      process.stdout.write(
        `audit appends, ${writers} writer(s): ${result.appendsPerSecond}/s  p50 ${result.p50Ms} ms  p99 ${result.p99Ms} ms  (${result.appends} in ${result.seconds} s)\n`,
      );
    }
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(
      join(RESULTS, 'audit-append.json'),
      `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: cpus().length, secondsPerPhase: SECONDS, results }, null, 2)}\n`,
    );
  } finally {
    await database.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
  process.exit(1);
});
