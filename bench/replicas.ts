import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startRoundRobinProxy } from '../test/support/round-robin-proxy';
import { cleanupAll, onCleanup } from './support/cleanup';
import { bridleUsers, Load, send, usersNeeded } from './support/load';
import { speedAround, speedSentence } from './support/machine-speed';
import { chargedCpu, startCluster } from './support/postgres-cluster';
import { postgresFigures } from './support/postgres-figures';
import { busyCores, type Listener, machineCpu, processCpuMs, startListener, waitForQuietMachine } from './support/processes';

/**
 * `npm run bench:replicas`: REPLICAS_COUNT (3) replicas of the BUILT service (`node dist/main.js`)
 * on one database of a private PostgreSQL cluster (bench/support/postgres-cluster.ts), behind
 * the round-robin proxy the tests use (test/support/round-robin-proxy.ts: no stickiness, as the
 * operations guide's nginx and HAProxy configurations). Chat turns of the offline model, the
 * mixed cycle, closed loop at REPLICAS_CONCURRENCY (16) through the proxy, as bench:chat-turn
 * drives them (bench/support/load.ts). Prints turns/s, latency, the replicas' CPU and
 * PostgreSQL's CPU per turn, how the turns spread over the replicas, and the machine's load.
 *
 * The proxy runs in this process, so it shares the 2 cores with the replicas and the cluster:
 * the figures are the fleet's cost per turn on one machine, not what separate machines would do.
 *
 * Knobs: REPLICAS_COUNT=3, REPLICAS_CONCURRENCY=16, REPLICAS_WARMUP=1000, REPLICAS_MEASURED=5000,
 * REPLICAS_SERVER_ENV="A=1 B=2" (extra environment for every replica, e.g. DATABASE_POOL_MAX=5),
 * REPLICAS_QUIET_WAIT_S=60 (wait at most this long for the machine to fall below 15 % busy).
 */

const ROOT = join(__dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'main.js');
const COUNT = whole('REPLICAS_COUNT', 3);
const CONCURRENCY = whole('REPLICAS_CONCURRENCY', 16);
const WARMUP = whole('REPLICAS_WARMUP', 1_000);
const MEASURED = whole('REPLICAS_MEASURED', 5_000);
const QUIET_WAIT_MS = whole('REPLICAS_QUIET_WAIT_S', 60) * 1000;

function whole(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a whole number ≥ 1, got "${raw}"`);
  return Number(raw);
}

function serverEnv(): Record<string, string> {
  const pairs = (process.env.REPLICAS_SERVER_ENV ?? '').split(/\s+/).filter((pair) => pair !== '');
  return Object.fromEntries(pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
}

const out = (text: string) => process.stdout.write(`${text}\n`);
const round = (value: number, digits = 1) => Number(value.toFixed(digits));

async function main(): Promise<void> {
  const tag = randomBytes(4).toString('hex');
  out(
    `bench:replicas — ${COUNT} replica${COUNT === 1 ? '' : 's'} behind a round-robin proxy, PostgreSQL, offline model, mixed, c=${CONCURRENCY}`,
  );
  const cluster = await startCluster();
  const database = `bench_replicas_${tag}`;
  await cluster.createDatabase(database);
  onCleanup(`drop database ${database}`, () => cluster.dropDatabase(database));

  const replicas: Listener[] = [];
  const targets: string[] = [];
  const proxy = await startRoundRobinProxy(() => targets);
  onCleanup('stop the proxy', () => proxy.close());
  const proxyPort = Number(new URL(proxy.url).port);

  const dataDir = await mkdtemp(join(tmpdir(), 'bridle-bench-replicas-'));
  onCleanup(`remove ${dataDir}`, () => rm(dataDir, { recursive: true, force: true }));
  const jwtSecret = randomBytes(36).toString('base64url');
  // All at once, as a fleet starts: they take turns on the migration lock.
  const started = await Promise.all(
    Array.from({ length: COUNT }, (_, index) =>
      startListener({
        label: `replica ${index + 1}`,
        cwd: ROOT,
        args: [MAIN],
        env: {
          DATABASE_URL: cluster.urlOf(database),
          BRIDLE_DATA_DIR: dataDir,
          PORT: '0',
          HOST: '127.0.0.1',
          PUBLIC_BASE_URL: proxy.url,
          TRUST_PROXY: 'loopback',
          LOG_LEVEL: 'warn',
          AUTH_RATE_LIMIT_PER_MINUTE: '100000',
          API_RATE_LIMIT_PER_MINUTE: '1000000',
          CHAT_RATE_LIMIT_PER_MINUTE: '1000000',
          JWT_SECRET: jwtSecret,
          ...serverEnv(),
        },
        ready: async (port) => (await send(undefined, port, 'GET', '/health')).status === 200,
      }),
    ),
  );
  for (const replica of started) {
    replicas.push(replica);
    targets.push(`http://127.0.0.1:${replica.port}`);
    onCleanup(`stop ${replica.label}`, async () => {
      await replica.stop();
    });
  }
  out(`  ${COUNT} replica${COUNT === 1 ? '' : 's'} on ports ${replicas.map((replica) => replica.port).join(', ')}; proxy on ${proxyPort}`);

  const users = await bridleUsers(proxyPort, usersNeeded(CONCURRENCY, WARMUP + MEASURED), tag);
  const load = new Load({
    system: 'bridle',
    mix: 'mixed',
    concurrency: CONCURRENCY,
    port: proxyPort,
    users,
    plannedTurns: WARMUP + MEASURED,
  });
  onCleanup('close the load', () => Promise.resolve(load.close()));
  await load.run(WARMUP, false);
  out(`  ${WARMUP} warm-up turns done`);

  const busyBefore = await waitForQuietMachine(out, QUIET_WAIT_MS);
  const readSpeed = speedAround();
  const loadBefore = loadavg();
  const hitsBefore = proxy.hits.length;
  const replicasBefore = replicas.map((replica) => processCpuMs(replica.pid) ?? 0);
  const clusterBefore = cluster.cpu();
  const statsBefore = await cluster.databaseStats(database);
  const statementsBefore = await cluster.statements(database);
  const evictionsBefore = await cluster.evictions();
  const machineBefore = machineCpu();
  const clientBefore = process.cpuUsage();
  const began = performance.now();
  await load.run(MEASURED, true);
  const elapsed = performance.now() - began;
  const client = process.cpuUsage(clientBefore);
  const machineAfter = machineCpu();
  const statsAfter = await cluster.databaseStats(database);
  const statementsAfter = await cluster.statements(database);
  const complete = (await cluster.evictions()) === evictionsBefore;
  const clusterAfter = cluster.cpu();
  const replicasMs = replicas.map((replica, index) => (processCpuMs(replica.pid) ?? 0) - replicasBefore[index]);
  const loadAfter = loadavg();
  const speed = readSpeed();

  const postgres = chargedCpu(clusterBefore, clusterAfter, database, []);
  const figures = postgresFigures(statementsBefore, statementsAfter, statsBefore, statsAfter, MEASURED, complete);
  const turnsByReplica = targets.map(
    (target) => proxy.hits.slice(hitsBefore).filter((hit) => hit.target === target && hit.path.endsWith('/chat')).length,
  );
  const latencies = [...load.stats.latencies].sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  const serviceMs = replicasMs.reduce((sum, ms) => sum + ms, 0);
  const lines = [
    '',
    `| replicas | c | turns | turns/s | p50 / p95 ms | replicas' CPU a turn | PostgreSQL CPU a turn | statements, commits a turn | proxy and load CPU a turn | machine busy |`,
    `|---|---|---|---|---|---|---|---|---|---|`,
    `| ${COUNT} | ${CONCURRENCY} | ${MEASURED} | ${round(MEASURED / (elapsed / 1000))} | ${round(at(0.5))} / ${round(at(0.95))} | ` +
      `${round(serviceMs / MEASURED, 2)} ms | ${round(postgres.totalMs / MEASURED, 2)} ms | ` +
      `${figures.statementsPerTurn}${complete ? '' : ' (incomplete)'}, ${figures.commitsPerTurn} | ${round((client.user + client.system) / 1000 / MEASURED, 2)} ms | ` +
      `${round(busyCores(machineBefore, machineAfter), 2)} of ${cpus().length} cores |`,
    '',
    `Turns per replica (through the proxy): ${turnsByReplica.join(' / ')}; CPU per replica: ${replicasMs.map((ms) => `${round(ms / 1000, 1)} s`).join(' / ')}.`,
    `Failed turns: ${load.stats.failures}, unexpected replies: ${load.stats.unexpected}. ` +
      `Machine ${busyBefore} % busy before measuring; load average ${loadBefore.map((value) => round(value, 2)).join(' ')} before, ` +
      `${loadAfter.map((value) => round(value, 2)).join(' ')} after.`,
    speedSentence(speed),
    `PostgreSQL ${cluster.version}, node ${process.version}.`,
    '',
    'Statements by PostgreSQL time a turn (pg_stat_statements, nested ones included):',
    ...figures.topStatements
      .slice(0, 10)
      .map(
        (stat) =>
          `  ${stat.msPerTurn.toFixed(3)} ms, ${stat.callsPerTurn} calls  ${stat.toplevel ? '' : '(nested) '}${stat.query.slice(0, 110)}`,
      ),
  ];
  for (const line of lines) out(line);
  if (load.stats.failures > 0) process.exitCode = 1;
}

main()
  .then(cleanupAll)
  .catch(async (error: unknown) => {
    process.stderr.write(`bench:replicas failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await cleanupAll();
    process.exitCode = 1;
  });
