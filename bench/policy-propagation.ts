import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { ChangePolicyUseCase } from '../src/application/policy/change-policy.use-case';
import { PolicyBasis } from '../src/application/policy/policy-provider';
import { StoredPolicy } from '../src/application/policy/stored-policy';
import { Logger } from '../src/application/shared/ports/logger.port';
import { TODO_TOOLS } from '../src/application/todo/tools/todo-tool-definitions';
import { defaultPolicy, policyCatalogue } from '../src/domain/policy/default-policy';
import { PostgresFleetBus } from '../src/infrastructure/events/postgres-fleet-bus';
import { openDatabase } from '../src/infrastructure/persistence/database';
import { PostgresAuditLog } from '../src/infrastructure/persistence/repositories/postgres-audit-log';
import { DatabasePolicyAccounts } from '../src/infrastructure/persistence/repositories/database-policy-accounts';
import { PostgresPolicyStore } from '../src/infrastructure/persistence/repositories/postgres-policy-store';
import { AuditAppender } from '../src/infrastructure/persistence/tables/audit-log';
import { SystemClock } from '../src/infrastructure/system-clock';
import type { Metrics } from '../src/application/shared/ports/metrics.port';

const CHANGES = Number(process.env.POLICY_CHANGES ?? 40);
const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Logs nothing: the bench prints its own figures. */
class QuietLogger extends Logger {
  info(): void {}
  warn(): void {}
  error(): void {}
  withContext(): Logger {
    return this;
  }
}
const quiet = new QuietLogger();

/** Counts nothing. */
const noMetrics = new Proxy({}, { get: () => () => undefined }) as Metrics;

/**
 * `npm run bench:policy-propagation` (the target: a policy change made on one replica is in force
 * on every replica within 1 s). Two replicas on one PostgreSQL database, each with its own
 * connection pool, fleet bus (its LISTEN connection) and StoredPolicy, as two processes have
 * them; no timer runs, so only the bus's message carries a change. CHANGES times, alternating
 * which replica stores: the time from the admin's answer (ChangePolicyUseCase resolved, the
 * version in force on the storing replica) to the other replica's current() giving the new
 * version, polled every millisecond. Real PostgreSQL at BENCH_POSTGRES_URL, on a database of its
 * own, dropped after.
 */
async function main(): Promise<void> {
  const name = `bridle_bench_policy_${process.pid}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const settings = { kind: 'server' as const, url: url.toString() };
  const databases: DataSource[] = [];
  const buses: PostgresFleetBus[] = [];
  const policies: StoredPolicy[] = [];
  try {
    const catalogue = policyCatalogue(TODO_TOOLS);
    const basis = new PolicyBasis(catalogue, defaultPolicy(catalogue, 'confirm-in-chat'));
    const replicas = [];
    for (let i = 0; i < 2; i++) {
      const database = await openDatabase(settings);
      const bus = new PostgresFleetBus(settings.url, database);
      const store = new PostgresPolicyStore(database);
      const accounts = new DatabasePolicyAccounts(database);
      const policy = new StoredPolicy(basis, store, bus, quiet);
      await policy.start();
      const audit = new PostgresAuditLog(database, new AuditAppender(noMetrics));
      databases.push(database);
      buses.push(bus);
      policies.push(policy);
      replicas.push({ policy, change: new ChangePolicyUseCase(basis, store, accounts, policy, bus, audit, new SystemClock(), quiet) });
    }
    // Both LISTEN connections up before the first change.
    for (let tries = 0; ; tries++) {
      const [{ n }] = await databases[0].query<{ n: string }[]>(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'bridle-fleet-bus' AND datname = current_database()`,
      );
      if (Number(n) >= 2) break;
      if (tries > 5000) throw new Error('the fleet buses did not listen');
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const adminId = randomUUID();
    const delays: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const [writer, reader] = i % 2 === 0 ? [replicas[0], replicas[1]] : [replicas[1], replicas[0]];
      const rules = [{ name: `cap-${i}`, tools: ['add_task'], effect: 'limit', limit: { max: 100 + i, per: 'person', window: 'day' } }];
      const stored = await writer.change.execute({ adminId, adminEmail: 'admin@example.com', rules, reason: `change ${i}` });
      const answered = performance.now();
      while (reader.policy.current().version < stored.version) {
        if (performance.now() - answered > 10_000) throw new Error(`version ${stored.version} did not reach the other replica`);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      delays.push(performance.now() - answered);
    }
    delays.sort((a, b) => a - b);
    const at = (q: number) => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))].toFixed(1);
    process.stdout.write(
      `policy propagation, 2 replicas on PostgreSQL, ${CHANGES} changes: from the admin's answer to the other replica's ` +
        `current(): median ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${delays[delays.length - 1].toFixed(1)} ms (target: 1000 ms)\n`,
    );
  } finally {
    for (const policy of policies) policy.stop();
    for (const bus of buses) await bus.close();
    for (const database of databases) await database.destroy();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
  process.exitCode = 1;
});
