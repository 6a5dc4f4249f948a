import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { cleanupAll, onCleanup } from './support/cleanup';
import { analyseCpuProfile, formatProfile, type ProfileSummary } from './support/cpu-profile';
import { liveHeapsOfSnapshots } from './support/heap-snapshot';
import { speedAround, speedSentence, type SpeedReadings } from './support/machine-speed';
import { bridleUsers, KINDS, type Kind, Load, type Mix, referenceUsers, send, usersNeeded } from './support/load';
import { chargedCpu, type Cluster, type DatabaseStats, startCluster, type StatementStat } from './support/postgres-cluster';
import { type PostgresFigures, postgresFigures } from './support/postgres-figures';
import {
  busyCores,
  type Listener,
  machineCpu,
  processCpuMs,
  rssBytes,
  sleep,
  startListener,
  startNodeFlags,
  waitForQuietMachine,
} from './support/processes';
import { writeJson } from './support/results';
import { git } from './support/git';

/**
 * `npm run bench:chat-turn`: the chat endpoint of the BUILT service (`node dist/main.js`, a
 * child process; on PGlite with `npm start`'s node flags, package.json config.startNodeFlags)
 * over HTTP, closed-loop, in every configuration of
 *   model {offline, openai-fake} × database {PGlite, PostgreSQL} × concurrency {1, 16}
 *   × mix {add-only, mixed}
 * and the reference target (bench/reference/server.ts: @openai/agents + Express + pg) on
 * PostgreSQL with the fake model, add-only, at c=1 and c=16. The reference and Bridle's
 * matching configuration (openai-fake, PostgreSQL, add-only, same concurrency) run side by
 * side: both services up at once, measured in alternating chunks (A B B A A B B A), so a
 * change of load on the shared machine hits both.
 *
 * PostgreSQL is a private cluster (bench/support/postgres-cluster.ts) with
 * pg_stat_statements; every configuration gets a fresh database. The fake model is
 * bench/support/fake-openai.ts, a child process. Per configuration: turns/s, p50/p95/p99,
 * server CPU per turn (utime + stime of the service process), PostgreSQL CPU per turn (every
 * process of the cluster), statements per turn (pg_stat_statements, nested ones included),
 * commits per turn (pg_stat_database.xact_commit), RSS after 1 000 and after the last
 * measured turn. Then the issue's targets, met or missed. Writes bench/results/turns.md and
 * bench/results/turns.json (docs/performance.md explains every figure).
 *
 * Knobs (defaults are the benchmark; with any of the first seven set, results go to
 * dist-bench/results/ instead, so a trial never replaces the committed figures):
 *   TURNS_ONLY=a/b,c        run the configurations whose id has all the words of a part
 *                           (ids: bridle/offline/postgres/mixed/c16, reference/openai-fake/postgres/add-only/c1, …;
 *                           TURNS_ONLY=postgres/c16,reference: PostgreSQL at c=16, and the reference)
 *   TURNS_MEASURED=10000    measured turns at c=16      TURNS_WARMUP=2000    warm-up turns at c=16
 *   TURNS_MEASURED_C1=2000  measured turns at c=1       TURNS_WARMUP_C1=2000 warm-up turns at c=1
 *   TURNS_CHUNKS=4          chunks a side-by-side configuration is measured in
 *   TURNS_PROFILE=a/b       the Bridle configurations it selects (as TURNS_ONLY) run under node --cpu-prof
 *                           (their figures are inflated; the profile summary is printed and kept)
 *   TURNS_NODE_ARGS="…"     extra node flags for Bridle; TURNS_MAIN=<main.js of another build>
 *   TURNS_SERVER_ENV="A=1 B=2"  extra environment for Bridle (a setting tried without a build)
 *   TURNS_HEAP_SNAPSHOTS=1  Bridle writes a heap snapshot after the 1 000th measured turn and after the last;
 *                           the live heap of each is reported (the snapshots pause the service: other figures suffer)
 *   TURNS_QUIET_WAIT_S=60   before each run, wait at most this long for the machine to calm down
 *                           (at most 5× this over the whole benchmark; then runs start at once)
 *   TURNS_SERVER_LOG=<file> append the services' output there
 */

const ROOT = join(__dirname, '..', '..');
const MAIN = process.env.TURNS_MAIN || join(ROOT, 'dist', 'main.js');
const REFERENCE = join(__dirname, 'reference', 'server.js');
const FAKE = join(__dirname, 'support', 'fake-openai.js');
const COMMAND = 'npm run bench:chat-turn';
const PARTIAL_KNOBS = [
  'TURNS_ONLY',
  'TURNS_MEASURED',
  'TURNS_WARMUP',
  'TURNS_MEASURED_C1',
  'TURNS_WARMUP_C1',
  'TURNS_CHUNKS',
  'TURNS_PROFILE',
  'TURNS_NODE_ARGS',
  'TURNS_MAIN',
  'TURNS_SERVER_ENV',
  'TURNS_HEAP_SNAPSHOTS',
];
const PARTIAL = PARTIAL_KNOBS.some((name) => (process.env[name] ?? '') !== '');
const HEAP_SNAPSHOTS = process.env.TURNS_HEAP_SNAPSHOTS === '1';
const RESULTS = PARTIAL ? join(ROOT, 'dist-bench', 'results') : join(ROOT, 'bench', 'results');

const TURNS = {
  16: { warmup: intFromEnv('TURNS_WARMUP', 2_000), measured: intFromEnv('TURNS_MEASURED', 10_000) },
  1: { warmup: intFromEnv('TURNS_WARMUP_C1', 2_000), measured: intFromEnv('TURNS_MEASURED_C1', 2_000) },
} as const;
const CHUNKS = intFromEnv('TURNS_CHUNKS', 4);
const QUIET_WAIT_MS = intFromEnv('TURNS_QUIET_WAIT_S', 60) * 1000;
/** What is left of the quiet-wait budget of the whole benchmark. */
let quietBudgetMs = 5 * QUIET_WAIT_MS;
/** Backends report their counters to pg_stat_database at most once a second, and within a second of going idle. */
const STATS_SETTLE_MS = 2_000;
const RSS_EARLY_TURN = 1_000;
/** The first RSS reading: after the 1 000th measured turn, or half way through a shorter run. */
const rssEarlyTurn = (measured: number) => Math.min(RSS_EARLY_TURN, Math.max(1, Math.round(measured / 2)));

/**
 * The chat targets, stated as costs against the reference measured in the same run (they
 * replace four earlier targets, which two shared cores could not reach: docs/performance.md).
 */
const TARGETS = {
  postgresCpuFactor: 1.5,
  serverAndPostgresCpuFactor: 1.1,
  referenceThroughputFactor: 0.9,
  commitsPerOneToolTurn: 4,
  rssChangePct: 10,
  pgliteRssMb: 300,
} as const;

/** TURNS_SERVER_ENV: `NAME=value` pairs separated by spaces. */
function serverEnv(): Record<string, string> {
  const pairs = (process.env.TURNS_SERVER_ENV ?? '').split(/\s+/).filter((pair) => pair !== '');
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`TURNS_SERVER_ENV: "${pair}" is not NAME=value`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number`);
  return value;
}

// ---------------------------------------------------------------- the configurations

type System = 'bridle' | 'reference';
type Model = 'offline' | 'openai-fake';
type Database = 'pglite' | 'postgres';
type Concurrency = 1 | 16;

interface Target {
  readonly id: string;
  readonly system: System;
  readonly model: Model;
  readonly database: Database;
  readonly mix: Mix;
  readonly concurrency: Concurrency;
  readonly warmup: number;
  readonly measured: number;
  readonly profiled: boolean;
}

/** Whether the id has every word of one of the comma-separated parts ("postgres/c16,reference"). */
function selects(list: string, id: string): boolean {
  const words = new Set(id.split('/'));
  return list
    .split(',')
    .map((part) => part.split('/').filter((word) => word.trim() !== ''))
    .some((part) => part.length > 0 && part.every((word) => words.has(word.trim())));
}

function target(system: System, model: Model, database: Database, mix: Mix, concurrency: Concurrency): Target {
  const id = `${system}/${model}/${database}/${mix}/c${concurrency}`;
  const profiled = system === 'bridle' && selects(process.env.TURNS_PROFILE ?? '', id);
  return { id, system, model, database, mix, concurrency, ...TURNS[concurrency], profiled };
}

/** Groups run one after the other; the targets of a group are measured side by side. */
function plan(): Target[][] {
  const only = process.env.TURNS_ONLY ?? '';
  const wanted = (t: Target) => only.trim() === '' || selects(only, t.id);
  const groups: Target[][] = [];
  for (const concurrency of [16, 1] as const) {
    groups.push([
      target('bridle', 'openai-fake', 'postgres', 'add-only', concurrency),
      target('reference', 'openai-fake', 'postgres', 'add-only', concurrency),
    ]);
    for (const database of ['postgres', 'pglite'] as const) {
      for (const model of ['offline', 'openai-fake'] as const) {
        for (const mix of ['mixed', 'add-only'] as const) {
          if (!(database === 'postgres' && model === 'openai-fake' && mix === 'add-only'))
            groups.push([target('bridle', model, database, mix, concurrency)]);
        }
      }
    }
  }
  return groups.map((group) => group.filter(wanted)).filter((group) => group.length > 0);
}

// ---------------------------------------------------------------- results

interface Latency {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
  readonly count: number;
}

interface Result {
  readonly id: string;
  readonly system: System;
  readonly model: Model;
  readonly database: Database;
  readonly mix: Mix;
  readonly concurrency: Concurrency;
  readonly profiled: boolean;
  readonly warmupTurns: number;
  readonly measuredTurns: number;
  readonly chunks: number;
  readonly seconds: number;
  readonly turnsPerSecond: number;
  readonly latencyMs: Latency;
  readonly latencyByKindMs: Partial<Record<Kind, Latency>>;
  readonly cpuMsPerTurn: {
    readonly server: number;
    /** Every process of the private cluster (null on PGlite: the database runs inside the server). */
    readonly postgres: number | null;
    readonly postgresBackends: number | null;
    readonly loadGenerator: number;
    readonly fakeModel: number | null;
  };
  /** Cores busy on average while measuring: the machine, and the part no process of the benchmark used (other engineers' work). */
  readonly cores: { readonly machine: number; readonly other: number };
  readonly postgres: PostgresFigures | null;
  readonly modelRequestsPerTurn: number | null;
  readonly rss: {
    readonly earlyTurn: number;
    readonly earlyMb: number;
    readonly finalTurn: number;
    readonly finalMb: number;
    readonly changePct: number;
    readonly traceMb: readonly { readonly turn: number; readonly mb: number }[];
  };
  readonly failures: number;
  readonly unexpectedReplies: number;
  readonly sent: number;
  readonly problems: readonly string[];
  readonly checks: readonly string[];
  readonly setupSeconds: number;
  readonly machineBusyBeforePct: number;
  readonly serverExitCode: number | null;
  readonly profile?: ProfileSummary;
  /** TURNS_HEAP_SNAPSHOTS: the live heap (after a full collection) after the early turn and after the last, by the service's turn. */
  readonly liveHeapMb?: { readonly earlyTurn: number; readonly early: number; readonly finalTurn: number; readonly final: number };
}

interface GroupFailure {
  readonly ids: readonly string[];
  readonly error: string;
}

// ---------------------------------------------------------------- one group

interface Shared {
  readonly cluster: Cluster | undefined;
  readonly fake: Listener | undefined;
  readonly out: (text: string) => void;
}

interface Running {
  readonly target: Target;
  readonly service: Listener;
  readonly load: Load;
  readonly database: string | undefined;
  readonly cpuProfDir: string | undefined;
  /** Where the service writes its heap snapshots (TURNS_HEAP_SNAPSHOTS). */
  readonly heapDir: string | undefined;
  readonly setupSeconds: number;
  /** Drops the database and removes the temp folders (the service is stopped first). */
  readonly release: () => Promise<void>;
  measuredDone: number;
  chunks: number;
  ms: number;
  serverMs: number;
  postgresMs: number;
  postgresBackendsMs: number;
  clientMs: number;
  fakeMs: number;
  machineCoreMs: number;
  modelRequests: number;
  readonly trace: { turn: number; bytes: number }[];
  statementsBefore?: Map<string, StatementStat>;
  statsBefore?: DatabaseStats;
}

async function fakeRequests(fake: Listener | undefined): Promise<number> {
  if (!fake) return 0;
  const reply = await send(undefined, fake.port, 'GET', '/stats');
  return (JSON.parse(reply.body) as { requests: number }).requests;
}

async function start(t: Target, shared: Shared): Promise<Running> {
  const undo: (() => Promise<void>)[] = [];
  const release = async () => {
    for (let step = undo.pop(); step; step = undo.pop()) await step();
  };
  try {
    return await startService(t, shared, undo, release);
  } catch (error) {
    await release();
    throw error;
  }
}

async function startService(t: Target, shared: Shared, undo: (() => Promise<void>)[], release: () => Promise<void>): Promise<Running> {
  const began = performance.now();
  const tag = randomBytes(4).toString('hex');
  const dataDir = await mkdtemp(join(tmpdir(), 'bridle-bench-turns-'));
  undo.push(onCleanup(`remove ${dataDir}`, () => rm(dataDir, { recursive: true, force: true })));
  let database: string | undefined;
  if (t.database === 'postgres') {
    const cluster = shared.cluster;
    if (!cluster) throw new Error('no PostgreSQL cluster');
    const name = `bench_${t.system}_${tag}`;
    await cluster.createDatabase(name);
    undo.push(onCleanup(`drop database ${name}`, () => cluster.dropDatabase(name)));
    database = name;
  }
  const jwtSecret = randomBytes(36).toString('base64url');
  const modelUrl = `http://127.0.0.1:${shared.fake?.port ?? 0}/v1`;
  if (t.model === 'openai-fake' && !shared.fake) throw new Error('no fake model');
  let cpuProfDir: string | undefined;
  if (t.profiled) {
    const dir = await mkdtemp(join(tmpdir(), 'bridle-bench-prof-'));
    undo.push(onCleanup(`remove ${dir}`, () => rm(dir, { recursive: true, force: true })));
    cpuProfDir = dir;
  }
  let heapDir: string | undefined;
  if (HEAP_SNAPSHOTS && t.system === 'bridle') {
    const dir = await mkdtemp(join(tmpdir(), 'bridle-bench-heap-'));
    undo.push(onCleanup(`remove ${dir}`, () => rm(dir, { recursive: true, force: true })));
    heapDir = dir;
  }
  let service: Listener;
  if (t.system === 'bridle') {
    // On PGlite the service runs as `npm start` runs the embedded default; on PostgreSQL as a
    // deployment runs it, `node dist/main.js` (docs/operations.md).
    const extra = [
      ...(t.database === 'pglite' ? startNodeFlags(ROOT) : []),
      ...(process.env.TURNS_NODE_ARGS ?? '').split(/\s+/).filter((arg) => arg !== ''),
    ];
    if (heapDir) extra.push('--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${heapDir}`);
    service = await startListener({
      label: t.id,
      cwd: ROOT,
      args: [...extra, ...(cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : []), MAIN],
      env: {
        BRIDLE_DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        AUTH_RATE_LIMIT_PER_MINUTE: '100000',
        API_RATE_LIMIT_PER_MINUTE: '1000000',
        CHAT_RATE_LIMIT_PER_MINUTE: '1000000',
        JWT_SECRET: jwtSecret,
        ...(database && shared.cluster ? { DATABASE_URL: shared.cluster.urlOf(database) } : {}),
        ...(t.model === 'openai-fake'
          ? { LLM_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-bench', OPENAI_MODEL: 'gpt-4o-mini', OPENAI_BASE_URL: modelUrl }
          : {}),
        ...serverEnv(),
      },
      ready: async (port) => (await send(undefined, port, 'GET', '/health')).status === 200,
      logFile: process.env.TURNS_SERVER_LOG || undefined,
    });
  } else {
    if (!database || !shared.cluster) throw new Error('the reference runs on PostgreSQL');
    service = await startListener({
      label: t.id,
      cwd: ROOT,
      args: [REFERENCE],
      env: { DATABASE_URL: shared.cluster.urlOf(database), JWT_SECRET: jwtSecret, MODEL_BASE_URL: modelUrl, PORT: '0', HOST: '127.0.0.1' },
      logFile: process.env.TURNS_SERVER_LOG || undefined,
    });
  }
  const planned = t.warmup + t.measured;
  const count = usersNeeded(t.concurrency, planned);
  undo.push(async () => {
    await service.stop();
  });
  const users = t.system === 'bridle' ? await bridleUsers(service.port, count, tag) : referenceUsers(count, jwtSecret);
  const load = new Load({ system: t.system, mix: t.mix, concurrency: t.concurrency, port: service.port, users, plannedTurns: planned });
  undo.push(() => Promise.resolve(load.close()));
  return {
    target: t,
    service,
    load,
    database,
    cpuProfDir,
    heapDir,
    release,
    setupSeconds: (performance.now() - began) / 1000,
    measuredDone: 0,
    chunks: 0,
    ms: 0,
    serverMs: 0,
    postgresMs: 0,
    postgresBackendsMs: 0,
    clientMs: 0,
    fakeMs: 0,
    machineCoreMs: 0,
    modelRequests: 0,
    trace: [],
  };
}

/**
 * Measures `turns` more turns of one target, adding up its CPU and time. `idle`: the other
 * targets of the group, whose services wait meanwhile (their backends' CPU is not this run's).
 */
async function measure(run: Running, turns: number, shared: Shared, idle: readonly Running[]): Promise<void> {
  const t = run.target;
  const every = Math.max(1, Math.round(t.measured / 10));
  const early = rssEarlyTurn(t.measured);
  const requestsBefore = await fakeRequests(shared.fake);
  const clusterBefore = shared.cluster?.cpu();
  const fakeBefore = shared.fake ? (processCpuMs(shared.fake.pid) ?? 0) : 0;
  const serverBefore = processCpuMs(run.service.pid) ?? 0;
  const clientBefore = process.cpuUsage();
  const machineBefore = machineCpu();
  const started = performance.now();
  if (run.trace.length === 0) run.trace.push({ turn: 0, bytes: rssBytes(run.service.pid) });
  const base = run.measuredDone;
  await run.load.run(turns, true, (done) => {
    const turn = base + done;
    if (turn === early || turn % every === 0 || turn === t.measured) run.trace.push({ turn, bytes: rssBytes(run.service.pid) });
    if (turn === early && run.heapDir) process.kill(run.service.pid, 'SIGUSR2');
  });
  const elapsed = performance.now() - started;
  const machineAfter = machineCpu();
  const client = process.cpuUsage(clientBefore);
  const serverAfter = processCpuMs(run.service.pid) ?? serverBefore;
  const fakeAfter = shared.fake ? (processCpuMs(shared.fake.pid) ?? fakeBefore) : 0;
  const clusterAfter = shared.cluster?.cpu();
  run.modelRequests += (await fakeRequests(shared.fake)) - requestsBefore;
  run.measuredDone += turns;
  run.chunks++;
  run.ms += elapsed;
  run.serverMs += serverAfter - serverBefore;
  run.clientMs += (client.user + client.system) / 1000;
  run.fakeMs += fakeAfter - fakeBefore;
  if (clusterBefore && clusterAfter) {
    const elsewhere = idle.flatMap((other) => (other.database ? [other.database] : []));
    const charged = chargedCpu(clusterBefore, clusterAfter, run.database, elsewhere);
    run.postgresMs += charged.totalMs;
    run.postgresBackendsMs += charged.backendsMs;
  }
  run.machineCoreMs += busyCores(machineBefore, machineAfter) * elapsed;
}

async function runGroup(group: readonly Target[], shared: Shared): Promise<Result[]> {
  const { cluster, out } = shared;
  const waitStarted = Date.now();
  const machineBusyBeforePct = await waitForQuietMachine(out, Math.min(QUIET_WAIT_MS, quietBudgetMs));
  quietBudgetMs = Math.max(0, quietBudgetMs - (Date.now() - waitStarted));
  const runs: Running[] = [];
  try {
    for (const t of group) {
      out(`  ${t.id}: starting${t.profiled ? ' under --cpu-prof' : ''}…`);
      const run = await start(t, shared);
      runs.push(run);
      await run.load.run(t.warmup, false);
      // Statistics of the warmed-up tables, as autovacuum keeps them in a database that has
      // run for a while: without them, the generic plans the service's connections cached on
      // the fresh, empty tables stay for the whole run, and one of them walked all of messages
      // backwards every turn (the opening statement took 4 ms instead of 0.4). Statistics of
      // 400 turns' tables were no better (a scan in seq order is the cheap plan at that size);
      // of 2 000 turns', the plans stay right as the tables grow. Plans are made again on their next use.
      if (cluster && run.database) await cluster.query(run.database, 'ANALYZE');
    }
    await sleep(STATS_SETTLE_MS);
    const evictionsBefore = cluster ? await cluster.evictions() : 0;
    for (const run of runs) {
      if (cluster && run.database) {
        run.statementsBefore = await cluster.statements(run.database);
        run.statsBefore = await cluster.databaseStats(run.database);
      }
    }

    // Side by side: A B B A A B B A …; alone: one chunk.
    const chunks = runs.length > 1 ? CHUNKS : 1;
    for (let chunk = 0; chunk < chunks; chunk++) {
      const order = chunk % 2 === 0 ? runs : [...runs].reverse();
      for (const run of order) {
        const size = chunk === chunks - 1 ? run.target.measured - run.measuredDone : Math.floor(run.target.measured / chunks);
        await measure(
          run,
          size,
          shared,
          runs.filter((other) => other !== run),
        );
      }
    }

    await sleep(STATS_SETTLE_MS);
    const complete = cluster ? (await cluster.evictions()) === evictionsBefore : true;
    const results: Result[] = [];
    for (const run of runs) {
      const t = run.target;
      let postgres: PostgresFigures | null = null;
      const checks: string[] = [];
      if (cluster && run.database && run.statementsBefore && run.statsBefore) {
        const after = await cluster.statements(run.database);
        const statsAfter = await cluster.databaseStats(run.database);
        postgres = postgresFigures(run.statementsBefore, after, run.statsBefore, statsAfter, run.measuredDone, complete);
        if (t.system === 'reference') {
          const [{ count }] = await cluster.query<{ count: string }>(run.database, 'SELECT count(*) FROM tasks');
          const expected = t.warmup + t.measured - run.load.stats.failures;
          checks.push(`${Number(count) === expected ? 'ok' : 'MISMATCH'}: ${count} tasks stored for ${expected} turns answered`);
        }
      }
      let heap: Result['liveHeapMb'];
      if (run.heapDir) {
        process.kill(run.service.pid, 'SIGUSR2');
        const [early, final] = (await liveHeapsOfSnapshots(run.heapDir, 2)).map((bytes) => round(bytes / 1024 / 1024, 1));
        // Named by the service's turn, warm-up included, as the RSS readings are.
        heap = { earlyTurn: t.warmup + rssEarlyTurn(t.measured), early, finalTurn: t.warmup + run.measuredDone, final };
      }
      const serverExitCode = await run.service.stop();
      let profile: ProfileSummary | undefined;
      if (run.cpuProfDir) {
        const file = readdirSync(run.cpuProfDir).find((name) => name.endsWith('.cpuprofile'));
        if (file) {
          profile = analyseCpuProfile(join(run.cpuProfDir, file), ROOT);
          out(formatProfile(profile, 25));
        } else out(`  ${t.id}: no .cpuprofile was written (exit ${String(serverExitCode)})`);
      }
      results.push({ ...result(run, postgres, checks, machineBusyBeforePct, serverExitCode, profile), liveHeapMb: heap });
    }
    return results;
  } finally {
    for (const run of runs) await run.release();
  }
}

function result(
  run: Running,
  postgres: PostgresFigures | null,
  checks: string[],
  machineBusyBeforePct: number,
  serverExitCode: number | null,
  profile: ProfileSummary | undefined,
): Result {
  const t = run.target;
  const turns = run.measuredDone;
  const stats = run.load.stats;
  const byKind: Partial<Record<Kind, Latency>> = {};
  if (t.mix === 'mixed') for (const kind of KINDS) byKind[kind] = summarise(stats.byKind[kind]);
  const early = run.trace.find((point) => point.turn === rssEarlyTurn(t.measured)) ?? run.trace[0];
  const last = run.trace.at(-1) ?? early;
  const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);
  const machineCores = run.machineCoreMs / run.ms;
  const ownCores = (run.serverMs + run.postgresMs + run.clientMs + run.fakeMs) / run.ms;
  return {
    id: t.id,
    system: t.system,
    model: t.model,
    database: t.database,
    mix: t.mix,
    concurrency: t.concurrency,
    profiled: t.profiled,
    warmupTurns: t.warmup,
    measuredTurns: turns,
    chunks: run.chunks,
    seconds: round(run.ms / 1000, 2),
    turnsPerSecond: round(turns / (run.ms / 1000), 1),
    latencyMs: summarise(stats.latencies),
    latencyByKindMs: byKind,
    cpuMsPerTurn: {
      server: round(run.serverMs / turns, 3),
      postgres: t.database === 'postgres' ? round(run.postgresMs / turns, 3) : null,
      postgresBackends: t.database === 'postgres' ? round(run.postgresBackendsMs / turns, 3) : null,
      loadGenerator: round(run.clientMs / turns, 3),
      fakeModel: t.model === 'openai-fake' ? round(run.fakeMs / turns, 3) : null,
    },
    cores: { machine: round(machineCores, 2), other: round(Math.max(0, machineCores - ownCores), 2) },
    postgres,
    modelRequestsPerTurn: t.model === 'openai-fake' ? round(run.modelRequests / turns, 2) : null,
    // The service's turns, warm-up included: the targets count from its start.
    rss: {
      earlyTurn: t.warmup + early.turn,
      earlyMb: mb(early.bytes),
      finalTurn: t.warmup + last.turn,
      finalMb: mb(last.bytes),
      changePct: round((100 * (last.bytes - early.bytes)) / early.bytes, 1),
      traceMb: run.trace.map((point) => ({ turn: point.turn, mb: mb(point.bytes) })),
    },
    failures: stats.failures,
    unexpectedReplies: stats.unexpected,
    sent: stats.sent,
    problems: stats.samples,
    checks,
    setupSeconds: round(run.setupSeconds, 1),
    machineBusyBeforePct,
    serverExitCode,
    ...(profile
      ? { profile: { ...profile, byFunction: profile.byFunction.slice(0, 60), repoInclusive: profile.repoInclusive.slice(0, 40) } }
      : {}),
  };
}

function summarise(values: readonly number[]): Latency {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
  return {
    p50: round(at(0.5), 2),
    p95: round(at(0.95), 2),
    p99: round(at(0.99), 2),
    max: round(sorted.at(-1) ?? NaN, 2),
    mean: round(mean, 2),
    count: sorted.length,
  };
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

// ---------------------------------------------------------------- targets

interface Verdict {
  readonly target: string;
  readonly configuration: string;
  readonly figure: string;
  readonly met: boolean | null;
}

function verdicts(results: readonly Result[]): Verdict[] {
  const find = (id: string) => results.find((r) => r.id === id && !r.profiled);
  const list: Verdict[] = [];
  const add = (targetText: string, configuration: string, figure: string | undefined, met: boolean | undefined) =>
    list.push({ target: targetText, configuration, figure: figure ?? 'not run', met: met ?? null });

  // Side by side with the reference: the same fake model, PostgreSQL, one tool a turn.
  const bridle = find('bridle/openai-fake/postgres/add-only/c16');
  const reference = find('reference/openai-fake/postgres/add-only/c16');
  const pg = (r: Result | undefined) => r?.cpuMsPerTurn.postgres ?? null;
  const both = bridle && reference && pg(bridle) !== null && pg(reference) !== null ? { bridle, reference } : undefined;
  const ratio = (a: number, b: number) => round(a / b, 2);
  const id = 'bridle/openai-fake/postgres/add-only/c16';
  if (both) {
    const [b, r] = [pg(both.bridle)!, pg(both.reference)!];
    add(
      `PostgreSQL CPU per one-tool turn ≤ ${TARGETS.postgresCpuFactor}× the reference's`,
      id,
      `${b} vs ${r} ms (${ratio(b, r)}×)`,
      b <= TARGETS.postgresCpuFactor * r,
    );
    const [bs, rs] = [both.bridle.cpuMsPerTurn.server + b, both.reference.cpuMsPerTurn.server + r];
    add(
      `service + PostgreSQL CPU per turn ≤ ${TARGETS.serverAndPostgresCpuFactor}× the reference's`,
      id,
      `${round(bs, 2)} vs ${round(rs, 2)} ms (${ratio(bs, rs)}×)`,
      bs <= TARGETS.serverAndPostgresCpuFactor * rs,
    );
    add(
      `turns/s at c=16 ≥ ${TARGETS.referenceThroughputFactor}× the reference's`,
      id,
      `${both.bridle.turnsPerSecond} vs ${both.reference.turnsPerSecond} turns/s (${ratio(both.bridle.turnsPerSecond, both.reference.turnsPerSecond)}×)`,
      both.bridle.turnsPerSecond >= TARGETS.referenceThroughputFactor * both.reference.turnsPerSecond,
    );
  } else {
    for (const text of ['PostgreSQL CPU per one-tool turn', 'service + PostgreSQL CPU per turn', 'turns/s at c=16'])
      add(`${text} against the reference's`, id, undefined, undefined);
  }
  for (const c of [16, 1] as const) {
    for (const model of ['openai-fake', 'offline'] as const) {
      const id = `bridle/${model}/postgres/add-only/c${c}`;
      const bridle = find(id);
      add(
        `≤ ${TARGETS.commitsPerOneToolTurn} commits per one-tool turn`,
        id,
        bridle?.postgres ? `${bridle.postgres.commitsPerTurn} commits` : undefined,
        bridle?.postgres ? bridle.postgres.commitsPerTurn <= TARGETS.commitsPerOneToolTurn : undefined,
      );
    }
  }
  for (const database of ['postgres', 'pglite'] as const) {
    for (const model of ['offline', 'openai-fake'] as const) {
      for (const mix of ['mixed', 'add-only'] as const) {
        const id = `bridle/${model}/${database}/${mix}/c16`;
        const r = find(id);
        const rss = r && `${r.rss.earlyMb} MB @${r.rss.earlyTurn} → ${r.rss.finalMb} MB @${r.rss.finalTurn} (${signed(r.rss.changePct)} %)`;
        if (database === 'postgres') {
          add(
            `server RSS within ${TARGETS.rssChangePct} % from turn 1 000 to 10 000`,
            id,
            rss,
            // Judged only from a first reading at the service's turn 1 000 or before (TURNS_WARMUP=0).
            r && r.rss.earlyTurn <= 1_000 && r.rss.finalTurn >= 10_000 ? Math.abs(r.rss.changePct) <= TARGETS.rssChangePct : undefined,
          );
        } else {
          add(
            `PGlite RSS < ${TARGETS.pgliteRssMb} MB after 10 000 turns`,
            id,
            rss,
            r && r.rss.finalTurn >= 10_000 ? r.rss.finalMb < TARGETS.pgliteRssMb : undefined,
          );
        }
      }
    }
  }
  return list;
}

const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(1)}`;

// ---------------------------------------------------------------- report

function label(r: Result): string {
  const model = r.model === 'offline' ? 'offline' : 'fake OpenAI';
  const database = r.database === 'postgres' ? 'PostgreSQL' : 'PGlite';
  return `${r.system === 'bridle' ? 'Bridle' : '**reference**'} · ${model} · ${database} · ${r.mix} · c=${r.concurrency}${r.profiled ? ' (under --cpu-prof)' : ''}`;
}

const fixed = (value: number | null | undefined, digits = 2) => (value === null || value === undefined ? '—' : value.toFixed(digits));

interface Meta {
  readonly date: string;
  readonly minutes: number;
  readonly commit: string;
  readonly dirty: readonly string[];
  readonly postgres: string | undefined;
  readonly node: string;
  readonly cpu: string;
  readonly machineSpeed: SpeedReadings;
}

function markdown(results: readonly Result[], list: readonly Verdict[], failures: readonly GroupFailure[], meta: Meta): string {
  const lines: string[] = [
    '# Chat turns',
    '',
    `\`${COMMAND}\`${PARTIAL ? ' (a partial run: TURNS_* knobs set)' : ''}, ${meta.date}, ${meta.minutes.toFixed(1)} min; commit ${meta.commit}` +
      `${meta.dirty.length > 0 ? ` with uncommitted changes in ${meta.dirty.length} files under src/` : ''}; node ${meta.node}; ` +
      `PostgreSQL ${meta.postgres ?? '—'} (a private cluster on the same machine); ${meta.cpu}, shared with other engineers' work ` +
      '("other load": cores busy with processes that are not the benchmark\'s, on average while measuring). ' +
      speedSentence(meta.machineSpeed),
    '',
    'Turns: warm-up + measured. CPU in ms per measured turn. RSS of the service after the 1 000th measured turn and after the last. ' +
      'The reference and Bridle with the fake model on PostgreSQL, add-only, ran side by side, in alternating chunks.',
    '',
    '| configuration | turns | turns/s | p50 / p95 / p99 ms | server CPU | PostgreSQL CPU | statements / turn | commits / turn | RSS MB | other load |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    lines.push(
      `| ${label(r)} | ${r.warmupTurns} + ${r.measuredTurns} | ${r.turnsPerSecond.toFixed(0)} | ${fixed(r.latencyMs.p50, 1)} / ${fixed(r.latencyMs.p95, 1)} / ${fixed(r.latencyMs.p99, 1)} | ` +
        `${fixed(r.cpuMsPerTurn.server)} | ${r.database === 'postgres' ? fixed(r.cpuMsPerTurn.postgres) : 'in server'} | ` +
        `${r.postgres ? `${fixed(r.postgres.statementsPerTurn, 1)}${r.postgres.statementsComplete ? '' : ' (incomplete)'}` : '—'} | ${fixed(r.postgres?.commitsPerTurn)} | ` +
        `${r.rss.earlyMb.toFixed(0)} → ${r.rss.finalMb.toFixed(0)} | ${r.cores.other.toFixed(2)} |`,
    );
  }
  for (const failure of failures)
    lines.push(
      `| ${failure.ids.join(', ')} | ABORTED: ${failure.error.replace(/\|/g, '/').replace(/\s+/g, ' ').slice(0, 200)} | | | | | | | | |`,
    );
  lines.push(
    '',
    '## Targets (costs against the reference, and the earlier commits and memory targets)',
    '',
    '| target | configuration | measured | |',
    '|---|---|---|---|',
  );
  for (const v of list)
    lines.push(`| ${v.target} | ${v.configuration} | ${v.figure} | ${v.met === null ? 'not run' : v.met ? 'met' : '**missed**'} |`);

  const mixed = results.filter((r) => r.mix === 'mixed' && !r.profiled);
  if (mixed.length > 0) {
    lines.push(
      '',
      '## Mixed mix: p50 / p95 ms by message',
      '',
      `| configuration | ${KINDS.join(' | ')} |`,
      `|---|${KINDS.map(() => '---').join('|')}|`,
    );
    for (const r of mixed)
      lines.push(
        `| ${label(r)} | ${KINDS.map((kind) => `${fixed(r.latencyByKindMs[kind]?.p50, 1)} / ${fixed(r.latencyByKindMs[kind]?.p95, 1)}`).join(' | ')} |`,
      );
  }

  lines.push('', '## Where the CPU goes, ms per turn', '');
  lines.push(
    '| configuration | server | PostgreSQL (backends) | load generator | fake model | model requests / turn | PostgreSQL statement time | rows written / turn |',
  );
  lines.push('|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    lines.push(
      `| ${label(r)} | ${fixed(r.cpuMsPerTurn.server)} | ${r.cpuMsPerTurn.postgres === null ? '—' : `${fixed(r.cpuMsPerTurn.postgres)} (${fixed(r.cpuMsPerTurn.postgresBackends)})`} | ` +
        `${fixed(r.cpuMsPerTurn.loadGenerator)} | ${fixed(r.cpuMsPerTurn.fakeModel)} | ${fixed(r.modelRequestsPerTurn)} | ${fixed(r.postgres?.topLevelStatementMsPerTurn)} | ${fixed(r.postgres?.rowsWrittenPerTurn, 1)} |`,
    );
  }

  for (const id of [
    'bridle/openai-fake/postgres/add-only/c16',
    'reference/openai-fake/postgres/add-only/c16',
    'bridle/offline/postgres/mixed/c16',
  ]) {
    const r = results.find((candidate) => candidate.id === id && candidate.postgres);
    if (!r?.postgres) continue;
    const pg = r.postgres;
    lines.push(
      '',
      `## Statements: ${label(r)}`,
      '',
      `${fixed(pg.statementsPerTurn, 1)} statements a turn (${fixed(pg.topLevelStatementsPerTurn, 1)} sent by the service, ${fixed(pg.nestedStatementsPerTurn, 1)} inside triggers, functions and foreign-key checks), ` +
        `plus ${fixed(pg.transactionControlPerTurn, 1)} BEGIN / COMMIT / SAVEPOINT; ${fixed(pg.commitsPerTurn)} commits. The 20 with the most time (pg_stat_statements; a nested statement's time is also in its caller's):`,
      '',
      '| calls / turn | ms / turn | mean ms | level | statement |',
      '|---|---|---|---|---|',
    );
    for (const s of pg.topStatements) {
      lines.push(
        `| ${fixed(s.callsPerTurn)} | ${fixed(s.msPerTurn, 3)} | ${fixed(s.meanMs, 3)} | ${s.toplevel ? 'top' : 'nested'} | \`${s.query.replace(/\|/g, '\\|').replace(/`/g, "'").slice(0, 160)}\` |`,
      );
    }
  }
  const problems = results.filter((r) => r.failures > 0 || r.unexpectedReplies > 0 || r.checks.some((check) => !check.startsWith('ok')));
  if (problems.length > 0) {
    lines.push('', '## Problems', '');
    for (const r of problems) {
      lines.push(
        `- ${r.id}: ${r.failures} failed and ${r.unexpectedReplies} unexpected of ${r.sent} turns; ${[...r.checks, ...r.problems].join(' · ')}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------- main

async function main(): Promise<number> {
  const began = performance.now();
  const readSpeed = speedAround();
  const out = (text: string) => process.stdout.write(`${text}\n`);
  const groups = plan();
  const targets = groups.flat();
  const cpuText = `${cpus().length} × ${cpus()[0]?.model.trim() ?? '?'}`;
  out(
    `${COMMAND}: ${targets.length} configurations in ${groups.length} runs; node ${process.version}; ${cpuText}` +
      (PARTIAL ? `; partial (results in ${RESULTS.slice(ROOT.length + 1)})` : ''),
  );
  if (targets.length === 0) throw new Error(`TURNS_ONLY="${process.env.TURNS_ONLY}" matches no configuration`);

  const cluster = targets.some((t) => t.database === 'postgres') ? await startCluster() : undefined;
  if (cluster) out(`  PostgreSQL ${cluster.version}: a private cluster on 127.0.0.1:${cluster.port} with pg_stat_statements`);
  const fake = targets.some((t) => t.model === 'openai-fake')
    ? await startListener({ label: 'fake OpenAI', cwd: ROOT, args: [FAKE], env: { PORT: '0' } })
    : undefined;
  const shared: Shared = { cluster, fake, out };

  const results: Result[] = [];
  const failures: GroupFailure[] = [];
  for (const [index, group] of groups.entries()) {
    out('');
    out(`[${index + 1}/${groups.length}] ${group.map((t) => t.id).join(' + ')}${group.length > 1 ? ' (side by side)' : ''}`);
    try {
      const done = await runGroup(group, shared);
      results.push(...done);
      for (const r of done) {
        out(
          `  ${r.id}: ${r.turnsPerSecond} turns/s, p50/p95/p99 ${r.latencyMs.p50}/${r.latencyMs.p95}/${r.latencyMs.p99} ms, ` +
            `CPU/turn server ${fixed(r.cpuMsPerTurn.server)} PostgreSQL ${fixed(r.cpuMsPerTurn.postgres)} ms, ` +
            `${fixed(r.postgres?.statementsPerTurn, 1)} statements, ${fixed(r.postgres?.commitsPerTurn)} commits a turn, ` +
            `RSS ${r.rss.earlyMb} → ${r.rss.finalMb} MB, other load ${r.cores.other} cores, ${r.failures + r.unexpectedReplies} problems`,
        );
        const heap = r.liveHeapMb;
        if (heap) out(`    live heap ${heap.early} MB after turn ${heap.earlyTurn} → ${heap.final} MB after turn ${heap.finalTurn}`);
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      failures.push({ ids: group.map((t) => t.id), error: message });
      out(`  ABORTED: ${message}`);
    }
  }
  await fake?.stop();
  await cluster?.stop();

  const list = verdicts(results);
  const minutes = (performance.now() - began) / 60_000;
  const meta: Meta = {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    minutes,
    commit: git(ROOT, ['rev-parse', '--short=12', 'HEAD']),
    dirty: git(ROOT, ['status', '--porcelain', '--', 'src'])
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.slice(3)),
    postgres: cluster?.version,
    node: process.version,
    cpu: cpuText,
    machineSpeed: readSpeed(),
  };
  const report = markdown(results, list, failures, meta);
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, 'turns.md'), report);
  await writeJson(join(RESULTS, 'turns.json'), {
    benchmark: 'chat turns',
    command: COMMAND,
    partial: PARTIAL,
    knobs: Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('TURNS_'))),
    date: meta.date,
    minutes: round(minutes, 1),
    git: { commit: meta.commit, uncommittedSrc: meta.dirty },
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model.trim(),
      memoryGb: round(totalmem() / 1024 ** 3, 1),
      kernel: release(),
      loadavgAtEnd: loadavg(),
      speed: meta.machineSpeed,
    },
    node: process.version,
    postgres: cluster ? { version: cluster.version, settings: cluster.settings } : null,
    turns: { c16: TURNS[16], c1: TURNS[1], chunksSideBySide: CHUNKS },
    targets: list,
    results,
    failures,
  });
  out('');
  out(report);
  out(`→ ${join(RESULTS, 'turns.md').slice(ROOT.length + 1)} and turns.json; ${minutes.toFixed(1)} min (without the build)`);
  return failures.length > 0 ? 1 : 0;
}

main()
  .then(async (code) => {
    await cleanupAll();
    process.exitCode = code;
  })
  .catch(async (error: unknown) => {
    process.stderr.write(`${COMMAND} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await cleanupAll();
    process.exitCode = 1;
  });
