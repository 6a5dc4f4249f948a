import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { cleanupAll, onCleanup, trackChild } from './support/cleanup';
import { chargedCpu, type Cluster, startCluster, type StatementStat } from './support/postgres-cluster';
import { speedAround, speedSentence, type SpeedReadings } from './support/machine-speed';
import { CLK_TCK, machineCpu, sleep, startListener, statFields } from './support/processes';
import { writeJson } from './support/results';

/**
 * The outreach controller's throughput and database cost: the BUILT service (`node dist/main.js`)
 * and 4 worker processes (`node dist/worker.js`) on a PostgreSQL database of the bench's own,
 * the offline planner and the sandbox channels. For each campaign size (1 000 and 10 000
 * tasks), it seeds an account and a campaign through the API (a CSV import), starts the
 * campaign once the workers run, and measures until the campaign is completed (or
 * OUTREACH_BENCH_MAX_SECONDS): tasks/s, PostgreSQL CPU per cycle (utime + stime from
 * /proc/<pid>/stat of every backend of the database), the workers' CPU, statements per cycle
 * (counted in the workers by bench/outreach-statements.ts), commits, buffers and rows per cycle.
 * Then, on a fresh database with a campaign of the largest size, it captures one worker's
 * cycle and runs EXPLAIN (ANALYZE, BUFFERS) on each of its statements, right after the
 * import (no statistics yet) and after ANALYZE. Writes bench/results/outreach-cycles.{json,md}.
 *
 * With OUTREACH_BENCH_POSTGRES=private it runs on a PostgreSQL cluster of its own instead
 * (bench/support/postgres-cluster.ts: autovacuum on, pg_stat_statements with track = all),
 * and adds what each statement cost per cycle, those run by triggers and functions included.
 *
 * Build first: `npm run build && npx tsc -p tsconfig.bench.json && node dist-bench/bench/outreach-cycles.js`.
 * Knobs: OUTREACH_BENCH_DIST (a folder with main.js and worker.js, default dist/),
 * OUTREACH_BENCH_SIZES (default 1000,10000), OUTREACH_BENCH_MAX_SECONDS (default 300),
 * OUTREACH_BENCH_EXPLAIN=0 (skip the plans), OUTREACH_BENCH_LABEL (a note kept in the results);
 * to find where time goes: OUTREACH_BENCH_ENV="NAME=value,…" (more environment for the service
 * and the workers), OUTREACH_BENCH_NODE_ARGS (node flags for the workers, e.g. --cpu-prof),
 * OUTREACH_BENCH_SYNCHRONOUS_COMMIT=off (the bench database's setting).
 */

const ROOT = join(__dirname, '..', '..');
const DIST = process.env.OUTREACH_BENCH_DIST || join(ROOT, 'dist');
const HOOK = join(__dirname, 'outreach-statements.js');
const RESULTS = join(ROOT, 'bench', 'results');
/** The shared server (trust auth, user postgres), or a private cluster. */
const SHARED_SERVER = 'postgres://postgres@127.0.0.1:5432';
const PRIVATE = process.env.OUTREACH_BENCH_POSTGRES === 'private';
const WORKERS = 4;
const SIZES = (process.env.OUTREACH_BENCH_SIZES || '1000,10000').split(',').map((size) => positive('OUTREACH_BENCH_SIZES', size));
const MAX_SECONDS = positive('OUTREACH_BENCH_MAX_SECONDS', process.env.OUTREACH_BENCH_MAX_SECONDS || '300');
const EXPLAIN = process.env.OUTREACH_BENCH_EXPLAIN !== '0';
const LABEL = process.env.OUTREACH_BENCH_LABEL ?? '';
const EXTRA_ENV = Object.fromEntries(
  (process.env.OUTREACH_BENCH_ENV ?? '')
    .split(',')
    .filter((pair) => pair.includes('='))
    .map((pair) => [pair.slice(0, pair.indexOf('=')).trim(), pair.slice(pair.indexOf('=') + 1).trim()]),
);
const NODE_ARGS = (process.env.OUTREACH_BENCH_NODE_ARGS ?? '').split(/\s+/).filter((arg) => arg !== '');
const SYNCHRONOUS_COMMIT = process.env.OUTREACH_BENCH_SYNCHRONOUS_COMMIT;
const SAMPLE_EVERY_MS = 100;
const START_TIMEOUT_MS = 90_000;
/** Statements shown per run, the costliest first (private cluster only). */
const TOP_STATEMENTS = 15;
/** PostgreSQL CPU per cycle within this factor from the smallest campaign to the largest: "flat". */
const TARGETS = { tasksPerSecond: 300, postgresMsPerCycle: 4, flatFactor: 1.25 } as const;

function positive(name: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must hold positive whole numbers, not "${raw}"`);
  return value;
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
const out = (text: string) => process.stdout.write(`${text}\n`);

// ---------------------------------------------------------------- processes

interface Child {
  readonly pid: number;
  readonly output: () => string;
  readonly stop: () => Promise<number | null>;
}

/** `node <args>` from the repository root with only PATH and `env`, stopped on cleanup. */
function spawnNode(args: readonly string[], env: Record<string, string>): Child {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  trackChild(child);
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-64_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const stop = onCleanup(`stop node ${args.at(-1) ?? ''} (pid ${child.pid ?? '?'})`, async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    try {
      await exited;
    } finally {
      clearTimeout(timer);
    }
  });
  if (!child.pid) throw new Error(`could not start node ${args.join(' ')}`);
  return { pid: child.pid, output: () => output, stop: async () => (await stop(), child.exitCode) };
}

async function call<T>(base: string, method: string, path: string, body?: unknown, token?: string, type = 'application/json'): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': type }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 500)}`);
  return (text ? JSON.parse(text) : null) as T;
}

// ---------------------------------------------------------------- CPU

interface Cpu {
  /** utime + stime, ms. */
  readonly ms: number;
  /** stime, ms: in the kernel (for these processes mostly socket reads and writes). */
  readonly system: number;
}

/** The CPU time of one process so far, or undefined once it is gone. */
function cpuOf(pid: number): Cpu | undefined {
  const fields = statFields(pid);
  if (!fields) return undefined;
  const [user, system] = [Number(fields[11]), Number(fields[12])].map((ticks) => (ticks * 1000) / CLK_TCK);
  return { ms: user + system, system };
}

const NO_CPU: Cpu = { ms: 0, system: 0 };
const minus = (a: Cpu, b: Cpu): Cpu => ({ ms: a.ms - b.ms, system: a.system - b.system });
const plus = (a: Cpu, b: Cpu): Cpu => ({ ms: a.ms + b.ms, system: a.system + b.system });

/**
 * The CPU of every backend serving `database` (from pg_stat_activity, sampled every 100 ms so
 * that a backend which exits meanwhile is counted up to its last sample), from `begin()` on.
 */
class BackendCpu {
  private readonly last = new Map<number, Cpu>();
  private readonly baseline = new Map<number, Cpu>();
  private begun = false;
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly admin: Client,
    private readonly database: string,
    private readonly excluded: () => readonly number[],
  ) {}

  start(): void {
    this.loop = (async () => {
      while (!this.stopped) {
        await this.sample();
        await sleep(SAMPLE_EVERY_MS);
      }
    })();
  }

  async sample(): Promise<void> {
    const { rows } = await this.admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1`, [this.database]);
    for (const { pid } of rows) {
      if (this.excluded().includes(pid)) continue;
      const cpu = cpuOf(pid);
      if (cpu === undefined) continue;
      // A backend first seen after begin() started within the window: all its CPU counts.
      if (!this.last.has(pid) && this.begun) this.baseline.set(pid, NO_CPU);
      this.last.set(pid, cpu);
    }
  }

  async begin(): Promise<void> {
    await this.sample();
    for (const [pid, ms] of this.last) this.baseline.set(pid, ms);
    this.begun = true;
  }

  /** CPU since begin(), and how many backends served. */
  async end(): Promise<{ cpu: Cpu; backends: number }> {
    await this.sample();
    this.stopped = true;
    await this.loop;
    let total = NO_CPU;
    for (const [pid, cpu] of this.last) {
      const baseline = this.baseline.get(pid);
      if (baseline) total = plus(total, minus(cpu, baseline));
    }
    return { cpu: total, backends: this.baseline.size };
  }
}

// ---------------------------------------------------------------- database statistics

interface DatabaseStats {
  readonly commits: number;
  readonly rollbacks: number;
  readonly buffers: number;
  readonly rowsReturned: number;
  readonly rowsFetched: number;
  readonly rowsWritten: number;
  readonly tables: Record<string, { seqScans: number; seqRows: number; indexScans: number; indexRows: number }>;
}

async function databaseStats(db: Client): Promise<DatabaseStats> {
  await db.query(`SELECT pg_stat_clear_snapshot()`);
  const { rows } = await db.query<Record<string, string>>(
    `SELECT xact_commit, xact_rollback, blks_hit + blks_read AS buffers, tup_returned, tup_fetched,
            tup_inserted + tup_updated + tup_deleted AS written
     FROM pg_stat_database WHERE datname = current_database()`,
  );
  const tables = await db.query<{
    relname: string;
    seq_scan: string;
    seq_tup_read: string;
    idx_scan: string | null;
    idx_tup_fetch: string | null;
  }>(`SELECT relname, seq_scan, seq_tup_read, idx_scan, idx_tup_fetch FROM pg_stat_user_tables`);
  return {
    commits: Number(rows[0].xact_commit),
    rollbacks: Number(rows[0].xact_rollback),
    buffers: Number(rows[0].buffers),
    rowsReturned: Number(rows[0].tup_returned),
    rowsFetched: Number(rows[0].tup_fetched),
    rowsWritten: Number(rows[0].written),
    tables: Object.fromEntries(
      tables.rows.map((row) => [
        row.relname,
        {
          seqScans: Number(row.seq_scan),
          seqRows: Number(row.seq_tup_read),
          indexScans: Number(row.idx_scan ?? 0),
          indexRows: Number(row.idx_tup_fetch ?? 0),
        },
      ]),
    ),
  };
}

// ---------------------------------------------------------------- one database with a seeded campaign

interface Setup {
  readonly dbName: string;
  readonly db: Client;
  readonly dbPid: number;
  readonly admin: Client;
  readonly env: Record<string, string>;
  readonly campaignId: string;
  readonly tasks: number;
  readonly start: () => Promise<void>;
  readonly dispose: () => Promise<void>;
}

/** Where the bench's databases are made: the shared server, or a private cluster. */
interface Server {
  readonly urlOf: (database: string) => string;
  readonly cluster: Cluster | null;
}

/** A database of its own, the service, an account and a campaign of about `size` tasks (leads with an email have 3), not started. */
async function setUp(server: Server, size: number, tag: string): Promise<Setup> {
  const dbName = `bridle_bench_outreach_${tag}`;
  const admin = new Client({ connectionString: server.urlOf('postgres') });
  await admin.connect();
  const dataDir = await mkdtemp(join(tmpdir(), 'bridle-outreach-bench-'));
  const steps: (() => Promise<void>)[] = [() => admin.end(), () => rm(dataDir, { recursive: true, force: true })];
  const dispose = onCleanup(`drop ${dbName}`, async () => {
    for (let step = steps.pop(); step; step = steps.pop()) await step().catch((error: unknown) => out(`cleanup failed: ${String(error)}`));
  });
  await admin.query(`CREATE DATABASE ${dbName}`);
  steps.push(() => admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).then(() => undefined));
  if (SYNCHRONOUS_COMMIT)
    await admin.query(`ALTER DATABASE ${dbName} SET synchronous_commit = ${SYNCHRONOUS_COMMIT === 'off' ? 'off' : 'on'}`);
  const env: Record<string, string> = {
    DATABASE_URL: server.urlOf(dbName),
    JWT_SECRET: randomBytes(36).toString('base64url'),
    BRIDLE_DATA_DIR: dataDir,
    LLM_PROVIDER: 'offline',
    AUTH_RATE_LIMIT_PER_MINUTE: '100000',
    API_RATE_LIMIT_PER_MINUTE: '1000000',
    // No limit may bind: the bench measures cycles that act.
    OUTREACH_OWNER_DAILY_PROFILE_LOOKUPS: '100000',
    OUTREACH_OWNER_DAILY_LINKEDIN_MESSAGES: '100000',
    OUTREACH_OWNER_DAILY_EMAILS: '100000',
    OUTREACH_OWNER_WEEKLY_PROFILE_LOOKUPS: '700000',
    OUTREACH_OWNER_WEEKLY_LINKEDIN_MESSAGES: '700000',
    OUTREACH_OWNER_WEEKLY_EMAILS: '700000',
    OUTREACH_POLL_INTERVAL_MS: '50',
    ...EXTRA_ENV,
  };
  const service = await startListener({
    label: 'the service',
    args: [join(DIST, 'main.js')],
    env: { ...env, OUTREACH_WORKER: 'false', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    cwd: ROOT,
    ready: async (port) => (await fetch(`http://127.0.0.1:${port}/health`)).ok,
  });
  steps.push(async () => void (await service.stop()));
  const base = `http://127.0.0.1:${service.port}`;
  const credentials = { email: `bench-${tag}@example.com`, password: `bench password ${tag}` };
  await call(base, 'POST', '/auth/register', credentials);
  const { accessToken, userId } = await call<{ accessToken: string; userId: string }>(base, 'POST', '/auth/login', credentials);
  const campaigns = `/api/${userId}/campaigns`;
  const limits = { profile_lookup: 10_000, linkedin_message: 10_000, email: 10_000 };
  const { id: campaignId } = await call<{ id: string }>(
    base,
    'POST',
    campaigns,
    { name: `Bench ${size}`, dailyLimits: limits },
    accessToken,
  );
  const leads = Math.ceil(size / 3);
  for (let first = 1; first <= leads; first += 5000) {
    const lines = ['name,linkedinUrl,email'];
    for (let i = first; i < Math.min(leads + 1, first + 5000); i++) {
      lines.push(`Lead ${i},https://www.linkedin.com/in/bench-lead-${i}/,lead.${i}@example.com`);
    }
    const report = await call<{ imported: number }>(
      base,
      'POST',
      `${campaigns}/${campaignId}/leads`,
      lines.join('\n'),
      accessToken,
      'text/csv',
    );
    if (report.imported !== lines.length - 1) throw new Error(`imported ${report.imported} of ${lines.length - 1} leads`);
  }
  const db = new Client({ connectionString: env.DATABASE_URL });
  await db.connect();
  steps.push(() => db.end());
  const dbPid = (await db.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`)).rows[0].pid;
  const tasks = Number(
    (await db.query<{ n: string }>(`SELECT count(*) AS n FROM outreach_tasks WHERE campaign_id = $1`, [campaignId])).rows[0].n,
  );
  return {
    dbName,
    db,
    dbPid,
    admin,
    env,
    campaignId,
    tasks,
    start: async () => void (await call(base, 'POST', `${campaigns}/${campaignId}/start`, undefined, accessToken)),
    dispose,
  };
}

function startWorker(setup: Setup, extra: Record<string, string>): Child {
  return spawnNode([...NODE_ARGS, '-r', HOOK, join(DIST, 'worker.js')], { ...setup.env, LOG_LEVEL: 'warn', ...extra });
}

async function until(probe: () => Promise<boolean>, what: string, timeoutMs: number, workers: readonly Child[]): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}:\n${workers.map((w) => w.output().slice(-2000)).join('\n---\n')}`);
    await sleep(50);
  }
}

function readCounts(dir: string): { statements: number; cycles: number } {
  let statements = 0;
  let cycles = 0;
  for (const file of readdirSync(dir)) {
    try {
      const counts = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { statements: number; cycles: number };
      statements += counts.statements;
      cycles += counts.cycles;
    } catch {
      // being rewritten this very moment: the next read has it
    }
  }
  return { statements, cycles };
}

// ---------------------------------------------------------------- throughput

interface RunResult {
  readonly tasks: number;
  readonly completed: boolean;
  readonly seconds: number;
  readonly tasksFinished: number;
  readonly cycles: number;
  readonly tasksPerSecond: number;
  readonly cyclesPerSecond: number;
  readonly postgresMsPerCycle: number;
  /** Of which in the kernel. */
  readonly postgresSystemMsPerCycle: number;
  readonly workerMsPerCycle: number;
  readonly workerSystemMsPerCycle: number;
  readonly postgresCores: number;
  readonly workerCores: number;
  readonly machineBusyPct: number;
  readonly statementsPerCycle: number;
  readonly commitsPerCycle: number;
  readonly buffersPerCycle: number;
  readonly rowsReadPerCycle: number;
  readonly rowsWrittenPerCycle: number;
  readonly perTable: Record<string, { seqScansPerCycle: number; seqRowsPerCycle: number; indexRowsPerCycle: number }>;
  readonly cycleMs: { p50: number; p95: number; mean: number };
  readonly outcomes: Record<string, number>;
  readonly tasksAnalyzed: boolean;
  readonly backends: number;
  /** On a private cluster: all of its CPU per cycle (background processes too), and what the statements cost. */
  readonly cluster: ClusterFigures | null;
}

interface ClusterFigures {
  readonly cpuMsPerCycle: number;
  /** Execution time of the statements the clients sent (pg_stat_statements, top level), per cycle. */
  readonly executionMsPerCycle: number;
  /** The costliest statements, top level or run by a trigger or function (nested). */
  readonly statements: readonly { query: string; nested: boolean; callsPerCycle: number; msPerCycle: number; msPerCall: number }[];
}

/** What each statement cost between two readings of pg_stat_statements, per cycle. */
function clusterFigures(
  before: { cpu: ReturnType<Cluster['cpu']>; statements: Map<string, StatementStat> },
  after: { cpu: ReturnType<Cluster['cpu']>; statements: Map<string, StatementStat> },
  database: string,
  cycles: number,
): ClusterFigures {
  const per = (value: number) => round(value / Math.max(1, cycles), 3);
  const deltas = [...after.statements].map(([key, stat]) => {
    const earlier = before.statements.get(key);
    return { stat, calls: stat.calls - (earlier?.calls ?? 0), ms: stat.totalMs - (earlier?.totalMs ?? 0) };
  });
  return {
    cpuMsPerCycle: per(chargedCpu(before.cpu, after.cpu, database, []).totalMs),
    executionMsPerCycle: per(deltas.filter((d) => d.stat.toplevel).reduce((sum, d) => sum + d.ms, 0)),
    statements: deltas
      .filter((d) => d.calls > 0)
      .sort((a, b) => b.ms - a.ms)
      .slice(0, TOP_STATEMENTS)
      .map((d) => ({
        query: label(d.stat.query),
        nested: !d.stat.toplevel,
        callsPerCycle: per(d.calls),
        msPerCycle: per(d.ms),
        msPerCall: round(d.ms / d.calls, 3),
      })),
  };
}

async function throughput(server: Server, size: number): Promise<RunResult> {
  const tag = randomBytes(4).toString('hex');
  const setup = await setUp(server, size, tag);
  const countsDir = await mkdtemp(join(tmpdir(), 'bridle-outreach-counts-'));
  const workers: Child[] = [];
  try {
    for (let i = 0; i < WORKERS; i++) workers.push(startWorker(setup, { OUTREACH_BENCH_COUNTS: countsDir }));
    const alive = async () =>
      Number((await setup.db.query<{ n: string }>(`SELECT count(*) AS n FROM outreach_workers`)).rows[0].n) >= WORKERS;
    await until(alive, 'the workers to start', START_TIMEOUT_MS, workers);
    const backends = new BackendCpu(setup.admin, setup.dbName, () => [setup.dbPid]);
    backends.start();
    const statsBefore = await databaseStats(setup.db);
    await sleep(300);
    const cluster = server.cluster;
    const clusterBefore = cluster ? { cpu: cluster.cpu(), statements: await cluster.statements(setup.dbName) } : null;
    await backends.begin();
    const countsBefore = readCounts(countsDir);
    const workerCpuBefore = workers.map((w) => cpuOf(w.pid) ?? NO_CPU);
    const machineBefore = machineCpu();
    const started = Date.now();
    const t0 = performance.now();
    await setup.start();
    let completed = false;
    while (performance.now() - t0 < MAX_SECONDS * 1000) {
      const { rows } = await setup.db.query<{ status: string }>(`SELECT status FROM campaigns WHERE id = $1`, [setup.campaignId]);
      if (rows[0].status === 'completed') {
        completed = true;
        break;
      }
      await sleep(50);
    }
    const ended = Date.now();
    const seconds = (performance.now() - t0) / 1000;
    const postgres = await backends.end();
    const clusterAfter = cluster ? { cpu: cluster.cpu(), statements: await cluster.statements(setup.dbName) } : null;
    const workerCpu = workers.reduce((sum, w, i) => plus(sum, minus(cpuOf(w.pid) ?? NO_CPU, workerCpuBefore[i])), NO_CPU);
    const machineAfter = machineCpu();
    const countsAfter = readCounts(countsDir);
    for (const worker of workers) await worker.stop();
    await sleep(700); // the backends' statistics are flushed when they exit
    const statsAfter = await databaseStats(setup.db);

    const q = async <T>(text: string, values: unknown[] = []) => (await setup.db.query<T & Record<string, unknown>>(text, values)).rows;
    const [finished] = await q<{ n: string }>(
      `SELECT count(*) AS n FROM outreach_tasks WHERE campaign_id = $1 AND status IN ('Completed', 'Failed', 'Cancelled') AND completed_at <= $2`,
      [setup.campaignId, new Date(ended)],
    );
    const [decisions] = await q<{ n: string; p50: number; p95: number; mean: number }>(
      `SELECT count(*) AS n, percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
              percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95, avg(duration_ms)::float8 AS mean
       FROM decision_logs WHERE campaign_id = $1 AND created_at >= $2 AND created_at <= $3`,
      [setup.campaignId, new Date(started), new Date(ended)],
    );
    const outcomes = await q<{ status: string; n: string }>(
      `SELECT status, count(*) AS n FROM decision_logs WHERE campaign_id = $1 GROUP BY status ORDER BY status`,
      [setup.campaignId],
    );
    const [analyzed] = await q<{ analyzed: boolean }>(
      `SELECT (last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL) AS analyzed FROM pg_stat_user_tables WHERE relname = 'outreach_tasks'`,
    );
    const cycles = Number(decisions.n);
    const per = (value: number) => round(value / Math.max(1, cycles), 2);
    const machine = (100 * (machineAfter.busy - machineBefore.busy)) / Math.max(1, machineAfter.total - machineBefore.total);
    const counted = { statements: countsAfter.statements - countsBefore.statements, cycles: countsAfter.cycles - countsBefore.cycles };
    return {
      tasks: setup.tasks,
      completed,
      seconds: round(seconds, 2),
      tasksFinished: Number(finished.n),
      cycles,
      tasksPerSecond: round(Number(finished.n) / seconds, 1),
      cyclesPerSecond: round(cycles / seconds, 1),
      postgresMsPerCycle: per(postgres.cpu.ms),
      postgresSystemMsPerCycle: per(postgres.cpu.system),
      workerMsPerCycle: per(workerCpu.ms),
      workerSystemMsPerCycle: per(workerCpu.system),
      postgresCores: round(postgres.cpu.ms / 1000 / seconds),
      workerCores: round(workerCpu.ms / 1000 / seconds),
      machineBusyPct: round(machine, 1),
      statementsPerCycle: round(counted.statements / Math.max(1, counted.cycles), 1),
      commitsPerCycle: per(statsAfter.commits - statsBefore.commits),
      buffersPerCycle: per(statsAfter.buffers - statsBefore.buffers),
      rowsReadPerCycle: per(statsAfter.rowsReturned - statsBefore.rowsReturned + statsAfter.rowsFetched - statsBefore.rowsFetched),
      rowsWrittenPerCycle: per(statsAfter.rowsWritten - statsBefore.rowsWritten),
      perTable: Object.fromEntries(
        Object.keys(statsAfter.tables).map((table) => {
          const [a, b] = [statsAfter.tables[table], statsBefore.tables[table] ?? { seqScans: 0, seqRows: 0, indexScans: 0, indexRows: 0 }];
          return [
            table,
            {
              seqScansPerCycle: per(a.seqScans - b.seqScans),
              seqRowsPerCycle: per(a.seqRows - b.seqRows),
              indexRowsPerCycle: per(a.indexRows - b.indexRows),
            },
          ];
        }),
      ),
      cycleMs: { p50: round(decisions.p50 ?? 0, 1), p95: round(decisions.p95 ?? 0, 1), mean: round(decisions.mean ?? 0, 1) },
      outcomes: Object.fromEntries(outcomes.map((row) => [row.status, Number(row.n)])),
      tasksAnalyzed: analyzed?.analyzed ?? false,
      backends: postgres.backends,
      cluster: clusterBefore && clusterAfter ? clusterFigures(clusterBefore, clusterAfter, setup.dbName, cycles) : null,
    };
  } finally {
    for (const worker of workers) await worker.stop();
    await setup.dispose();
    await rm(countsDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- plans

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Join Filter'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

interface StatementPlan {
  readonly statement: string;
  readonly ms: number;
  readonly planningMs: number;
  readonly buffers: number;
  /** Rows the plan's scans produced or filtered out, times their loops: what it read. */
  readonly rowsRead: number;
  readonly scans: string[];
  /** Every node of the plan, indented, with the rows it produced or filtered out. */
  readonly nodes: string[];
  readonly triggerMs: number;
  /** Each trigger that fired: its name, table, time and calls (foreign-key checks included). */
  readonly triggers: string[];
}

function label(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 110 ? `${flat.slice(0, 109)}…` : flat;
}

function scansOf(node: PlanNode, into: { rows: number; scans: string[]; nodes: string[] }, depth = 0): void {
  const loops = node['Actual Loops'] ?? 1;
  const read = ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) * loops;
  const target = [node['Relation Name'], node['Index Name'] && `using ${node['Index Name']}`].filter(Boolean).join(' ');
  const line = `${node['Node Type']}${target ? ` on ${target}` : ''}: ${read} rows${loops > 1 ? ` (${loops} loops)` : ''}`;
  into.nodes.push(`${'  '.repeat(depth)}${line}`);
  if (/Scan/.test(node['Node Type'])) {
    into.rows += read;
    into.scans.push(line);
  }
  for (const child of node.Plans ?? []) scansOf(child, into, depth + 1);
}

interface PlanTrigger {
  readonly 'Trigger Name': string;
  readonly Relation?: string;
  readonly Time: number;
  readonly Calls: number;
}

interface Captured {
  readonly text: string;
  readonly plan?: [{ Plan: PlanNode; 'Execution Time': number; 'Planning Time': number; Triggers?: PlanTrigger[] }];
  readonly error?: string;
}

/** What each statement of a captured cycle cost (transaction control has no plan). */
function summarise(captured: readonly Captured[]): StatementPlan[] {
  return captured
    .filter((statement) => statement.plan || statement.error)
    .map(({ text, plan, error }) => {
      if (!plan)
        return {
          statement: `${label(text)} (not explained: ${error})`,
          ms: 0,
          planningMs: 0,
          buffers: 0,
          rowsRead: 0,
          scans: [],
          nodes: [],
          triggerMs: 0,
          triggers: [],
        };
      const [result] = plan;
      const found = { rows: 0, scans: [] as string[], nodes: [] as string[] };
      scansOf(result.Plan, found);
      return {
        statement: label(text),
        ms: round(result['Execution Time'], 3),
        planningMs: round(result['Planning Time'], 3),
        buffers: (result.Plan['Shared Hit Blocks'] ?? 0) + (result.Plan['Shared Read Blocks'] ?? 0),
        rowsRead: found.rows,
        scans: found.scans,
        nodes: found.nodes,
        triggerMs: round(
          (result.Triggers ?? []).reduce((sum, trigger) => sum + trigger.Time, 0),
          3,
        ),
        triggers: (result.Triggers ?? []).map(
          (trigger) => `${trigger['Trigger Name']} on ${trigger.Relation ?? '?'}: ${round(trigger.Time, 3)} ms, ${trigger.Calls} calls`,
        ),
      };
    });
}

interface PlansResult {
  readonly tasks: number;
  readonly statementsInCycle: number;
  readonly fresh: StatementPlan[];
  readonly analyzed: StatementPlan[];
}

/**
 * Each statement of one worker's fifth cycle on a freshly imported campaign, explained as it
 * ran (bench/outreach-statements.ts): with no statistics yet, then, by another worker, after ANALYZE.
 */
async function plans(server: Server, size: number): Promise<PlansResult> {
  const tag = randomBytes(4).toString('hex');
  const setup = await setUp(server, size, tag);
  const dir = await mkdtemp(join(tmpdir(), 'bridle-outreach-capture-'));
  const capture = async (name: string): Promise<Captured[]> => {
    const file = join(dir, name);
    const worker = startWorker(setup, { OUTREACH_BENCH_CAPTURE: file });
    await until(() => Promise.resolve(existsSync(file)), 'a captured cycle', 10 * 60_000, [worker]);
    await worker.stop();
    return JSON.parse(readFileSync(file, 'utf8')) as Captured[];
  };
  try {
    await setup.start();
    const fresh = await capture('fresh.json');
    await setup.db.query('ANALYZE');
    const analyzed = await capture('analyzed.json');
    return { tasks: setup.tasks, statementsInCycle: fresh.length, fresh: summarise(fresh), analyzed: summarise(analyzed) };
  } finally {
    await setup.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- report

function markdown(
  runs: readonly RunResult[],
  plan: PlansResult | null,
  verdicts: Record<string, string>,
  started: string,
  settings: Record<string, string>,
  speed: SpeedReadings,
): string {
  const lines = [
    `# Outreach cycles on PostgreSQL${LABEL ? ` (${LABEL})` : ''}`,
    '',
    `\`node dist-bench/bench/outreach-cycles.js\`, ${started}; ${WORKERS} worker processes, offline planner, sandbox channels, ` +
      `PostgreSQL ${settings.server_version?.split(' ')[0] ?? ''} (${PRIVATE ? 'a private cluster' : 'the shared server'}) on the same ` +
      `${cpus().length}-core machine (${cpus()[0]?.model ?? '?'}), shared with other engineers' work (machine busy % below). ` +
      speedSentence(speed),
    '',
    '| tasks | done | s | tasks/s | PG CPU ms/cycle (kernel) | worker CPU ms/cycle (kernel) | statements/cycle | commits/cycle | buffers/cycle | rows read/cycle | cycle p50 / p95 ms | machine busy |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...runs.map(
      (r) =>
        `| ${r.tasks} | ${r.tasksFinished}${r.completed ? '' : ' (cut)'} | ${r.seconds} | ${r.tasksPerSecond} | ` +
        `${r.postgresMsPerCycle} (${r.postgresSystemMsPerCycle}) | ${r.workerMsPerCycle} (${r.workerSystemMsPerCycle}) | ` +
        `${r.statementsPerCycle} | ${r.commitsPerCycle} | ${r.buffersPerCycle} | ${r.rowsReadPerCycle} | ${r.cycleMs.p50} / ${r.cycleMs.p95} | ${r.machineBusyPct} % |`,
    ),
    '',
    'Tables read most per cycle (rows read sequentially / by index): ' +
      runs
        .map((r) => {
          const top = Object.entries(r.perTable)
            .sort(([, a], [, b]) => b.seqRowsPerCycle + b.indexRowsPerCycle - a.seqRowsPerCycle - a.indexRowsPerCycle)
            .slice(0, 4);
          return `${r.tasks} tasks: ${top.map(([table, t]) => `${table} ${t.seqRowsPerCycle} / ${t.indexRowsPerCycle}`).join(', ')}`;
        })
        .join('; ') +
      `. Statistics on outreach_tasks during the runs: ${runs.map((r) => (r.tasksAnalyzed ? 'analyzed' : 'none')).join(', ')}; ` +
      `server settings: ${Object.entries(settings)
        .map(([name, value]) => `${name} ${value}`)
        .join(', ')}` +
      `${
        Object.keys(EXTRA_ENV).length
          ? `; environment ${Object.entries(EXTRA_ENV)
              .map(([k, v]) => `${k}=${v}`)
              .join(' ')}`
          : ''
      }.`,
    '',
    `Targets: ${Object.entries(verdicts)
      .map(([name, verdict]) => `${name} ${verdict}`)
      .join('; ')}.`,
  ];
  for (const r of runs) {
    if (!r.cluster) continue;
    lines.push(
      '',
      `## What the statements cost per cycle, ${r.tasks} tasks (pg_stat_statements)`,
      '',
      `The whole cluster: ${r.cluster.cpuMsPerCycle} ms of CPU per cycle (background processes included); ` +
        `the statements the clients sent: ${r.cluster.executionMsPerCycle} ms of execution per cycle.`,
      '',
      '| statement | run by | calls/cycle | ms/cycle | ms/call |',
      '|---|---|---|---|---|',
      ...r.cluster.statements.map(
        (st) =>
          `| \`${st.query.replace(/\|/g, '\\|')}\` | ${st.nested ? 'a trigger or function' : 'a client'} | ${st.callsPerCycle} | ${st.msPerCycle} | ${st.msPerCall} |`,
      ),
    );
  }
  if (plan) {
    lines.push(
      '',
      `## EXPLAIN (ANALYZE, BUFFERS) of one cycle's ${plan.statementsInCycle} statements, campaign of ${plan.tasks} tasks`,
      '',
    );
    lines.push(
      '| statement | no statistics: ms / buffers / rows read | after ANALYZE: ms / buffers / rows read | scans (no statistics) |',
      '|---|---|---|---|',
    );
    const unused = [...plan.analyzed];
    for (const fresh of plan.fresh) {
      // The same statement of the other cycle (parallel reads may have run in another order).
      const index = unused.findIndex((analyzed) => analyzed.statement === fresh.statement);
      const [analyzed] = index >= 0 ? unused.splice(index, 1) : [undefined];
      const cell = (p?: StatementPlan) => (p ? `${p.ms} / ${p.buffers} / ${p.rowsRead}` : '—');
      lines.push(
        `| \`${fresh.statement.replace(/\|/g, '\\|')}\` | ${cell(fresh)} | ${cell(analyzed)} | ${[...fresh.scans, ...fresh.triggers.map((trigger) => `trigger ${trigger}`)].join('; ').replace(/\|/g, '\\|')} |`,
      );
    }
    const sum = (list: StatementPlan[], key: 'ms' | 'buffers' | 'rowsRead') =>
      round(
        list.reduce((total, p) => total + p[key], 0),
        2,
      );
    lines.push(
      `| **total** | ${sum(plan.fresh, 'ms')} / ${sum(plan.fresh, 'buffers')} / ${sum(plan.fresh, 'rowsRead')} | ` +
        `${sum(plan.analyzed, 'ms')} / ${sum(plan.analyzed, 'buffers')} / ${sum(plan.analyzed, 'rowsRead')} | |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The server settings that change what a cycle costs: autovacuum (statistics, dead rows) and commit durability. */
async function serverSettings(server: Server): Promise<Record<string, string>> {
  const admin = new Client({ connectionString: server.urlOf('postgres') });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ name: string; setting: string }>(
      `SELECT name, setting FROM pg_settings WHERE name IN ('autovacuum', 'synchronous_commit', 'shared_buffers', 'server_version') ORDER BY name`,
    );
    return {
      ...Object.fromEntries(rows.map((row) => [row.name, row.setting])),
      ...(SYNCHRONOUS_COMMIT ? { synchronous_commit: SYNCHRONOUS_COMMIT } : {}),
    };
  } finally {
    await admin.end();
  }
}

async function main(): Promise<void> {
  const started = new Date().toISOString();
  const readSpeed = speedAround();
  const cluster = PRIVATE ? await startCluster() : null;
  const server: Server = { urlOf: (database) => (cluster ? cluster.urlOf(database) : `${SHARED_SERVER}/${database}`), cluster };
  out(`outreach cycles: ${DIST}; sizes ${SIZES.join(', ')}; ${WORKERS} workers; node ${process.version}, ${cpus().length} cores`);
  const runs: RunResult[] = [];
  for (const size of SIZES) {
    const result = await throughput(server, size);
    runs.push(result);
    out(
      `  ${result.tasks} tasks: ${result.tasksPerSecond} tasks/s over ${result.seconds} s${result.completed ? '' : ' (cut at the time limit)'}, ` +
        `PostgreSQL ${result.postgresMsPerCycle} ms/cycle (kernel ${result.postgresSystemMsPerCycle}), ` +
        `workers ${result.workerMsPerCycle} ms/cycle (kernel ${result.workerSystemMsPerCycle}), ${result.statementsPerCycle} statements/cycle, ` +
        `${result.buffersPerCycle} buffers/cycle, machine ${result.machineBusyPct} % busy`,
    );
  }
  const plan = EXPLAIN ? await plans(server, Math.max(...SIZES)) : null;
  if (plan) out(`  plans of one cycle at ${plan.tasks} tasks: ${plan.fresh.length} statements explained`);
  const [smallest, largest] = [runs[0], runs[runs.length - 1]];
  const verdicts: Record<string, string> = {
    [`≥ ${TARGETS.tasksPerSecond} tasks/s at ${largest.tasks}`]: largest.tasksPerSecond >= TARGETS.tasksPerSecond ? 'met' : 'MISSED',
    [`PostgreSQL CPU ≤ ${TARGETS.postgresMsPerCycle} ms/cycle at ${largest.tasks}`]:
      largest.postgresMsPerCycle <= TARGETS.postgresMsPerCycle ? 'met' : 'MISSED',
    ...(runs.length > 1
      ? {
          [`flat (≤ ${TARGETS.flatFactor}× from ${smallest.tasks} to ${largest.tasks})`]:
            largest.postgresMsPerCycle <= TARGETS.flatFactor * smallest.postgresMsPerCycle ? 'met' : 'MISSED',
        }
      : {}),
  };
  const settings = await serverSettings(server);
  const speed = readSpeed();
  const environment = {
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? '?',
    date: started,
    dist: DIST,
    label: LABEL,
    settings,
    extraEnvironment: EXTRA_ENV,
    workerNodeArgs: NODE_ARGS,
    machineSpeed: speed,
  };
  mkdirSync(RESULTS, { recursive: true });
  await writeJson(join(RESULTS, 'outreach-cycles.json'), {
    benchmark: 'outreach-cycles',
    environment,
    targets: TARGETS,
    verdicts,
    runs,
    plans: plan,
  });
  writeFileSync(join(RESULTS, 'outreach-cycles.md'), markdown(runs, plan, verdicts, started, settings, speed));
  out(
    `  targets: ${Object.entries(verdicts)
      .map(([name, verdict]) => `${name}: ${verdict}`)
      .join('; ')}`,
  );
  out('  → bench/results/outreach-cycles.json, bench/results/outreach-cycles.md');
  await cluster?.stop();
}

main()
  .catch((error: unknown) => {
    out(`outreach cycles: ABORTED — ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exitCode = 1;
  })
  .finally(() => cleanupAll());
