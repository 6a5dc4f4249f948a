import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { analyseCpuProfile, formatProfile, type ProfileSummary } from './chat-turn-profile';

/**
 * `npm run bench:chat-turn`: the chat endpoint of the BUILT service (`node dist/main.js`,
 * a child process) under 16 concurrent users, on embedded PGlite and on PostgreSQL.
 * Each user loops over add → complete → delete (dry run, confirmation asked) → "yes delete"
 * in one conversation. Prints a table per database, writes bench/results/chat-turn-*.json,
 * and, when a PostgreSQL target is missed, runs PostgreSQL once more under --cpu-prof and
 * prints where the server's CPU time goes.
 *
 * Knobs for quick trials (the defaults are the benchmark): CHAT_TURN_MEASURED,
 * CHAT_TURN_WARMUP, CHAT_TURN_ONLY=pglite|postgres, CHAT_TURN_PROFILE=auto|always|never,
 * CHAT_TURN_KEEP_PROFILE=1 (keep the raw .cpuprofile in bench/results), and for investigations
 * CHAT_TURN_NODE_ARGS="--trace-gc …" (extra node flags for the server) with
 * CHAT_TURN_SERVER_LOG=<file> (append the server's stdout and stderr there), CHAT_TURN_MAIN=<main.js of another build>.
 */

const ROOT = join(__dirname, '..', '..');
/** The built service; CHAT_TURN_MAIN may point at another build to compare (an experiment). */
const MAIN = process.env.CHAT_TURN_MAIN || join(ROOT, 'dist', 'main.js');
const RESULTS = join(ROOT, 'bench', 'results');
const PG_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

const WORKERS = 16;
const WARMUP = intFromEnv('CHAT_TURN_WARMUP', 400);
const MEASURED = intFromEnv('CHAT_TURN_MEASURED', 10_000);
const RSS_EARLY = Math.min(1_000, Math.max(1, Math.round(MEASURED / 10)));
const RSS_EVERY = Math.max(1, Math.round(MEASURED / 10));
const MAX_FAILURE_RATE = 0.01;
const REQUEST_TIMEOUT_MS = 30_000;
const START_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 30_000;
const PHASE_DEADLINE_MS = 15 * 60_000;
const PG_SAMPLE_EVERY_MS = 20;
/** Before each run, wait (at most this long) until other processes leave the CPUs alone. */
const QUIET_WAIT_MS = 180_000;
const QUIET_BUSY_PCT = 15;

const TARGETS = { p95Ms: 20, turnsPerSecond: 400, rssChangePct: 10 } as const;

type Kind = 'add' | 'complete' | 'delete' | 'confirm';
const KINDS: readonly Kind[] = ['add', 'complete', 'delete', 'confirm'];
type DatabaseKind = 'pglite' | 'postgres';

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number`);
  return value;
}

// ---------------------------------------------------------------- cleanup

/** Undo actions, run newest first, on success, failure and Ctrl-C alike. */
const undoStack: { label: string; run: () => Promise<void> }[] = [];

function onCleanup(label: string, run: () => Promise<void>): () => Promise<void> {
  const entry = { label, run };
  undoStack.push(entry);
  let done = false;
  return async () => {
    if (done) return;
    done = true;
    const index = undoStack.indexOf(entry);
    if (index >= 0) undoStack.splice(index, 1);
    await run();
  };
}

async function cleanupAll(): Promise<void> {
  while (undoStack.length > 0) {
    const entry = undoStack.pop();
    if (!entry) break;
    try {
      await entry.run();
    } catch (error) {
      process.stderr.write(`cleanup "${entry.label}" failed: ${String(error)}\n`);
    }
  }
}

const children = new Set<ChildProcess>();
process.on('exit', () => {
  // Last resort: no service may outlive the benchmark.
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: cleaning up\n`);
    void cleanupAll().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------- the service as a child process

interface Service {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly port: number;
  readonly output: () => string;
  readonly stop: () => Promise<number | null>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The TCP port the process listens on, from /proc (the start-up line is info level, so LOG_LEVEL=warn hides it). */
function listeningPort(pid: number): number | undefined {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode) inodes.add(inode);
      } catch {
        // the descriptor closed meanwhile
      }
    }
  } catch {
    return undefined;
  }
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // sl local_address rem_address st ... inode(9); st 0A = LISTEN
      if (fields.length > 9 && fields[3] === '0A' && inodes.has(fields[9])) return parseInt(fields[1].split(':')[1], 16);
    }
  }
  return undefined;
}

async function startService(env: Record<string, string>, nodeArgs: readonly string[] = []): Promise<Service> {
  const extra = (process.env.CHAT_TURN_NODE_ARGS ?? '').split(/\s+/).filter((arg) => arg !== '');
  const child = spawn(process.execPath, [...extra, ...nodeArgs, MAIN], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  const log = process.env.CHAT_TURN_SERVER_LOG;
  const keep = (chunk: Buffer) => {
    if (log) appendFileSync(log, chunk);
    output += chunk.toString();
    if (output.length > 256_000) output = output.slice(-128_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      exitCode = code;
      children.delete(child);
      resolve(code);
    }),
  );
  const stop = async (): Promise<number | null> => {
    if (exitCode !== undefined) return exitCode;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  };
  const release = onCleanup(`stop service pid ${child.pid ?? '?'}`, async () => {
    await stop();
  });

  const deadline = Date.now() + START_TIMEOUT_MS;
  let port: number | undefined;
  while (Date.now() < deadline && exitCode === undefined && port === undefined) {
    const logged = /Listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
    port = logged ? Number(logged) : child.pid ? listeningPort(child.pid) : undefined;
    if (port === undefined) await sleep(100);
  }
  // Listening comes after the routes are mounted; /health also proves the database answers.
  while (port !== undefined && Date.now() < deadline && exitCode === undefined) {
    const health = await send(undefined, port, 'GET', '/health').catch(() => undefined);
    if (health?.status === 200) break;
    await sleep(100);
  }
  if (port === undefined || exitCode !== undefined || Date.now() >= deadline || !child.pid) {
    await release();
    throw new Error(`the service did not start (exit ${String(exitCode)}):\n${output.slice(-4000)}`);
  }
  return {
    child,
    pid: child.pid,
    port,
    output: () => output,
    stop: async () => {
      const code = await stop();
      await release();
      return code;
    },
  };
}

function rssBytes(pid: number): number {
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) * 1024;
}

// ---------------------------------------------------------------- HTTP client

interface Reply {
  readonly status: number;
  readonly body: string;
}

function send(agent: Agent | undefined, port: number, method: string, path: string, body?: unknown, token?: string): Promise<Reply> {
  return new Promise<Reply>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string | number> = {};
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    if (token) headers.authorization = `Bearer ${token}`;
    const req = request({ host: '127.0.0.1', port, method, path, agent: agent ?? false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`timeout after ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

// ---------------------------------------------------------------- load

interface ChatResponse {
  conversationId?: string;
  decision?: { type?: string };
  toolCalls?: { tool?: string; success?: boolean; result?: { task?: { number?: number } }; error?: { code?: string } }[];
}

interface Worker {
  readonly index: number;
  readonly userId: string;
  readonly token: string;
  conversationId: string | undefined;
  step: number;
  item: number;
  taskNumber: number | undefined;
}

interface LoadStats {
  readonly latencies: Record<Kind, number[]>;
  failures: number;
  unexpected: number;
  firstFailures: string[];
  sent: number;
}

interface Phase {
  remaining: number;
  readonly measured: boolean;
  completed: number;
  readonly onMeasured?: (completed: number) => void;
}

function messageOf(worker: Worker): { kind: Kind; message: string } {
  switch (worker.step) {
    case 0:
      return { kind: 'add', message: `add bench item ${worker.item}` };
    case 1:
      return { kind: 'complete', message: `mark task ${worker.taskNumber} done` };
    case 2:
      return { kind: 'delete', message: `delete task ${worker.taskNumber}` };
    default:
      return { kind: 'confirm', message: 'yes delete' };
  }
}

/** Moves the worker's cycle on; false when the reply did not take the expected path. */
function advance(worker: Worker, kind: Kind, reply: ChatResponse): boolean {
  const call = reply.toolCalls?.[0];
  switch (kind) {
    case 'add': {
      const n = call?.tool === 'add_task' && call.success ? call.result?.task?.number : undefined;
      if (typeof n !== 'number') return false;
      worker.taskNumber = n;
      worker.step = 1;
      return true;
    }
    case 'complete':
      worker.step = 2;
      return call?.tool === 'complete_task' && call.success === true;
    case 'delete':
      worker.step = 3;
      return reply.decision?.type === 'REQUEST_CONFIRMATION' && call?.error?.code === 'CONFIRMATION_REQUIRED';
    case 'confirm':
      worker.step = 0;
      worker.item++;
      worker.taskNumber = undefined;
      return call?.tool === 'delete_task' && call.success === true;
  }
}

async function turn(agent: Agent, port: number, worker: Worker, phase: Phase, stats: LoadStats, failureBudget: number) {
  const { kind, message } = messageOf(worker);
  const body = worker.conversationId ? { message, conversationId: worker.conversationId } : { message };
  const started = performance.now();
  let reply: Reply | undefined;
  let error: unknown;
  try {
    reply = await send(agent, port, 'POST', `/api/${worker.userId}/chat`, body, worker.token);
  } catch (caught) {
    error = caught;
  }
  const elapsed = performance.now() - started;
  stats.sent++;
  if (reply?.status === 200) {
    const parsed = JSON.parse(reply.body) as ChatResponse;
    worker.conversationId ??= parsed.conversationId;
    if (!advance(worker, kind, parsed)) {
      stats.unexpected++;
      if (stats.firstFailures.length < 5) stats.firstFailures.push(`unexpected ${kind} reply: ${reply.body.slice(0, 300)}`);
      // Start the cycle over so one odd reply does not derail the rest.
      if (kind !== 'confirm') worker.step = 0;
    }
  } else {
    stats.failures++;
    if (stats.firstFailures.length < 5) {
      stats.firstFailures.push(reply ? `HTTP ${reply.status} on ${kind}: ${reply.body.slice(0, 300)}` : `${kind}: ${String(error)}`);
    }
    worker.step = 0;
    if (stats.failures > failureBudget)
      throw new Error(`more than 1 % of the turns failed (${stats.failures}): ${stats.firstFailures.join(' | ')}`);
  }
  if (phase.measured) {
    stats.latencies[kind].push(elapsed);
    phase.completed++;
    phase.onMeasured?.(phase.completed);
  }
}

async function runPhase(agent: Agent, port: number, workers: readonly Worker[], phase: Phase, stats: LoadStats, failureBudget: number) {
  const deadline = performance.now() + PHASE_DEADLINE_MS;
  await Promise.all(
    workers.map(async (worker) => {
      // Bounded: every pass takes one turn off the shared budget.
      try {
        while (phase.remaining > 0) {
          if (performance.now() > deadline) throw new Error(`phase took longer than ${PHASE_DEADLINE_MS / 60_000} minutes`);
          phase.remaining--;
          await turn(agent, port, worker, phase, stats, failureBudget);
        }
      } catch (error) {
        phase.remaining = 0; // the other workers stop after their current turn
        throw error;
      }
    }),
  );
}

async function createUsers(agent: Agent, port: number, tag: string): Promise<Worker[]> {
  const workers: Worker[] = [];
  // scrypt is deliberately slow; a few at a time keeps start-up short without piling up.
  for (let batch = 0; batch < WORKERS; batch += 4) {
    const created = await Promise.all(
      Array.from({ length: Math.min(4, WORKERS - batch) }, async (_, offset) => {
        const index = batch + offset;
        const credentials = { email: `bench-${tag}-${index}@example.com`, password: `bench password ${tag} ${index}` };
        const registered = await send(agent, port, 'POST', '/auth/register', credentials);
        if (registered.status !== 201) throw new Error(`register ${index}: HTTP ${registered.status} ${registered.body}`);
        const login = await send(agent, port, 'POST', '/auth/login', credentials);
        if (login.status !== 200) throw new Error(`login ${index}: HTTP ${login.status} ${login.body}`);
        const { accessToken, userId } = JSON.parse(login.body) as { accessToken: string; userId: string };
        return { index, userId, token: accessToken, conversationId: undefined, step: 0, item: 1, taskNumber: undefined };
      }),
    );
    workers.push(...created);
  }
  return workers;
}

// ---------------------------------------------------------------- CPU and PostgreSQL observation

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of one process, in ms. */
function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // after "pid (comm) ": state(0) ... utime(11) stime(12)
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
  } catch {
    return undefined;
  }
}

/** Per-pid CPU ms of every PostgreSQL server process on this machine. */
function postgresCpu(): Map<number, number> {
  const result = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
    } catch {
      continue;
    }
    const ms = processCpuMs(Number(entry));
    if (ms !== undefined) result.set(Number(entry), ms);
  }
  return result;
}

/** Busy and total jiffies of all cores. */
function machineCpu(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = fields[3] + fields[4];
  return { busy: total - idle, total };
}

interface CpuSnapshot {
  readonly at: number;
  readonly server: number;
  readonly postgres: Map<number, number>;
  readonly client: NodeJS.CpuUsage;
  readonly machine: { busy: number; total: number };
}

function cpuSnapshot(serverPid: number): CpuSnapshot {
  return {
    at: performance.now(),
    server: processCpuMs(serverPid) ?? 0,
    postgres: postgresCpu(),
    client: process.cpuUsage(),
    machine: machineCpu(),
  };
}

interface CpuFigures {
  readonly serverMsPerTurn: number;
  readonly postgresMsPerTurn: number;
  readonly clientMsPerTurn: number;
  readonly serverCores: number;
  readonly postgresCores: number;
  readonly clientCores: number;
  /** Cores busy with anything else on the machine (other tests, builds…) while measuring. */
  readonly otherCores: number;
  readonly machineBusyPct: number;
}

function cpuFigures(before: CpuSnapshot, after: CpuSnapshot, turns: number): CpuFigures {
  const wallMs = after.at - before.at;
  let postgres = 0;
  for (const [pid, ms] of after.postgres) postgres += ms - (before.postgres.get(pid) ?? 0);
  const client = process.cpuUsage(before.client);
  const clientMs = (client.user + client.system) / 1000;
  const server = after.server - before.server;
  const machine = (100 * (after.machine.busy - before.machine.busy)) / Math.max(1, after.machine.total - before.machine.total);
  return {
    serverMsPerTurn: round(server / turns, 3),
    postgresMsPerTurn: round(postgres / turns, 3),
    clientMsPerTurn: round(clientMs / turns, 3),
    serverCores: round(server / wallMs, 2),
    postgresCores: round(postgres / wallMs, 2),
    clientCores: round(clientMs / wallMs, 2),
    otherCores: round(Math.max(0, (machine / 100) * cpus().length - (server + postgres + clientMs) / wallMs), 2),
    machineBusyPct: round(machine, 1),
  };
}

/** Waits (bounded) until the machine is idle enough to measure; returns its busy % over the last second. */
async function waitForQuietMachine(out: (text: string) => void): Promise<number> {
  const limit = Date.now() + QUIET_WAIT_MS;
  let told = false;
  for (;;) {
    const before = machineCpu();
    await sleep(1_000);
    const after = machineCpu();
    const busyPct = (100 * (after.busy - before.busy)) / Math.max(1, after.total - before.total);
    if (busyPct <= QUIET_BUSY_PCT) return round(busyPct, 1);
    if (Date.now() > limit) {
      out(`  the machine is still ${busyPct.toFixed(0)} % busy with other work after ${QUIET_WAIT_MS / 1000} s: measuring anyway`);
      return round(busyPct, 1);
    }
    if (!told)
      out(`  the machine is ${busyPct.toFixed(0)} % busy with other work: waiting up to ${QUIET_WAIT_MS / 1000} s for it to calm down…`);
    told = true;
    await sleep(4_000);
  }
}

interface PgStatRow {
  xact_commit: string;
  xact_rollback: string;
  active_time: number;
  idle_in_transaction_time: number;
  tup_returned: string;
  tup_fetched: string;
  tup_inserted: string;
  tup_updated: string;
  tup_deleted: string;
}

async function pgDatabaseStats(admin: Client, database: string): Promise<PgStatRow> {
  const { rows } = await admin.query<PgStatRow>(
    `SELECT xact_commit, xact_rollback, active_time, idle_in_transaction_time,
            tup_returned, tup_fetched, tup_inserted, tup_updated, tup_deleted
     FROM pg_stat_database WHERE datname = $1`,
    [database],
  );
  return rows[0];
}

/** Samples how many of the service's backends are executing a statement right now. */
class ActivitySampler {
  private samples = 0;
  private activeSum = 0;
  private idleInTxSum = 0;
  private connectionsMax = 0;
  private activeMax = 0;
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly client: Client,
    private readonly database: string,
  ) {}

  start(): void {
    const maxSamples = Math.ceil(PHASE_DEADLINE_MS / PG_SAMPLE_EVERY_MS);
    this.loop = (async () => {
      while (!this.stopped && this.samples < maxSamples) {
        let rows: { active: number; idle_tx: number; total: number }[];
        try {
          ({ rows } = await this.client.query<{ active: number; idle_tx: number; total: number }>(
            `SELECT count(*) FILTER (WHERE state = 'active')::int AS active,
                    count(*) FILTER (WHERE state LIKE 'idle in transaction%')::int AS idle_tx,
                    count(*)::int AS total
             FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'`,
            [this.database],
          ));
        } catch {
          break; // the connection closed under us: the run is over
        }
        this.samples++;
        this.activeSum += rows[0].active;
        this.idleInTxSum += rows[0].idle_tx;
        this.activeMax = Math.max(this.activeMax, rows[0].active);
        this.connectionsMax = Math.max(this.connectionsMax, rows[0].total);
        await sleep(PG_SAMPLE_EVERY_MS);
      }
    })();
  }

  async stop() {
    this.stopped = true;
    await this.loop;
    return {
      samples: this.samples,
      meanActive: round(this.activeSum / Math.max(1, this.samples), 2),
      maxActive: this.activeMax,
      meanIdleInTransaction: round(this.idleInTxSum / Math.max(1, this.samples), 2),
      maxConnections: this.connectionsMax,
    };
  }
}

// ---------------------------------------------------------------- one run

interface LatencySummary {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
  readonly count: number;
}

interface PostgresFigures {
  readonly meanActiveBackends: number;
  readonly maxActiveBackends: number;
  readonly meanIdleInTransactionBackends: number;
  readonly maxConnections: number;
  readonly activeSamples: number;
  /** Little's law: mean active backends × measured wall time ÷ measured turns. */
  readonly activeMsPerTurnSampled: number;
  /** From pg_stat_database.active_time over the whole run (warm-up included), read after the service stopped. */
  readonly activeMsPerTurn: number;
  readonly idleInTransactionMsPerTurn: number;
  readonly commitsPerTurn: number;
  readonly rowsWrittenPerTurn: number;
}

interface RunResult {
  readonly database: DatabaseKind;
  readonly profiled: boolean;
  readonly measuredTurns: number;
  readonly warmupTurns: number;
  readonly workers: number;
  readonly seconds: number;
  readonly turnsPerSecond: number;
  readonly latencyMs: LatencySummary;
  readonly p95ByKindMs: Record<Kind, number>;
  readonly latencyByKindMs: Record<Kind, LatencySummary>;
  readonly rss: {
    readonly earlyTurn: number;
    readonly earlyBytes: number;
    readonly finalTurn: number;
    readonly finalBytes: number;
    readonly changePct: number;
    readonly trace: readonly { turn: number; bytes: number }[];
    /** Least-squares slope of the trace: a leak shows as a steady climb, GC as a saw. */
    readonly slopeMbPer1000Turns: number;
  };
  readonly failures: number;
  readonly totalTurns: number;
  readonly failureRatePct: number;
  readonly unexpectedReplies: number;
  readonly failureSamples: readonly string[];
  readonly cpu: CpuFigures;
  readonly postgres: PostgresFigures | null;
  readonly serverExitCode: number | null;
  readonly setupSeconds: number;
  /** Machine busy % in the second before the run started. */
  readonly machineBusyBeforePct: number;
}

async function benchDatabase(
  database: DatabaseKind,
  out: (text: string) => void,
  options: { cpuProfDir?: string } = {},
): Promise<RunResult> {
  const machineBusyBeforePct = await waitForQuietMachine(out);
  const setupStarted = performance.now();
  const tag = randomBytes(4).toString('hex');
  const dataDir = await mkdtemp(join(tmpdir(), 'bridle-chat-turn-'));
  const removeDataDir = onCleanup(`remove ${dataDir}`, () => rm(dataDir, { recursive: true, force: true }));
  let admin: Client | undefined;
  let dropDatabase: (() => Promise<void>) | undefined;
  let service: Service | undefined;
  let agent: Agent | undefined;
  try {
    const env: Record<string, string> = {
      BRIDLE_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      AUTH_RATE_LIMIT_PER_MINUTE: '100000',
      CHAT_RATE_LIMIT_PER_MINUTE: '1000000',
      JWT_SECRET: randomBytes(36).toString('base64url'),
    };
    let dbName = '';
    if (database === 'postgres') {
      dbName = `bridle_bench_${tag}`;
      const connected = new Client({ connectionString: PG_ADMIN_URL });
      await connected.connect();
      admin = connected;
      const closeAdmin = onCleanup('close admin connection', () => connected.end());
      await connected.query(`CREATE DATABASE ${dbName}`);
      const drop = onCleanup(`drop database ${dbName}`, async () => {
        await connected.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      });
      dropDatabase = async () => {
        await drop();
        await closeAdmin();
      };
      env.DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${dbName}`;
    }

    service = await startService(env, options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : []);
    agent = new Agent({ keepAlive: true, maxSockets: WORKERS });
    const workers = await createUsers(agent, service.port, tag);
    const stats: LoadStats = {
      latencies: { add: [], complete: [], delete: [], confirm: [] },
      failures: 0,
      unexpected: 0,
      firstFailures: [],
      sent: 0,
    };
    const failureBudget = Math.floor(MAX_FAILURE_RATE * (WARMUP + MEASURED));
    const pgBefore = admin ? await pgDatabaseStats(admin, dbName) : undefined;
    const setupSeconds = (performance.now() - setupStarted) / 1000;

    await runPhase(agent, service.port, workers, { remaining: WARMUP, measured: false, completed: 0 }, stats, failureBudget);

    const pid = service.pid;
    const trace: { turn: number; bytes: number }[] = [];
    let earlyBytes = 0;
    let finalBytes = 0;
    let sampler: ActivitySampler | undefined;
    let samplerClient: Client | undefined;
    if (database === 'postgres') {
      const connected = new Client({ connectionString: PG_ADMIN_URL });
      await connected.connect();
      samplerClient = connected;
      sampler = new ActivitySampler(connected, dbName);
    }
    const closeSampler = onCleanup('close sampler connection', async () => {
      await samplerClient?.end();
    });
    sampler?.start();
    const cpuBefore = cpuSnapshot(pid);
    const started = performance.now();
    let ended = started;
    let cpuAfter = cpuBefore;
    const phase: Phase = {
      remaining: MEASURED,
      measured: true,
      completed: 0,
      onMeasured: (completed) => {
        if (completed === MEASURED) {
          ended = performance.now();
          cpuAfter = cpuSnapshot(pid);
        }
        if (completed % RSS_EVERY === 0 || completed === RSS_EARLY || completed === MEASURED) {
          const bytes = rssBytes(pid);
          if (completed === RSS_EARLY) earlyBytes = bytes;
          if (completed === MEASURED) finalBytes = bytes;
          if (trace.at(-1)?.turn !== completed) trace.push({ turn: completed, bytes });
        }
      },
    };
    await runPhase(agent, service.port, workers, phase, stats, failureBudget);
    const activity = await sampler?.stop();
    await closeSampler();
    const seconds = (ended - started) / 1000;

    agent.destroy();
    agent = undefined;
    const serverExitCode = await service.stop();
    service = undefined;

    let postgres: PostgresFigures | null = null;
    if (admin && pgBefore && activity) {
      // Backends flush their statistics when they exit: the service is stopped now.
      await sleep(500);
      const pgAfter = await pgDatabaseStats(admin, dbName);
      const turns = WARMUP + MEASURED;
      const delta = (key: keyof PgStatRow) => Number(pgAfter[key]) - Number(pgBefore[key]);
      postgres = {
        meanActiveBackends: activity.meanActive,
        maxActiveBackends: activity.maxActive,
        meanIdleInTransactionBackends: activity.meanIdleInTransaction,
        maxConnections: activity.maxConnections,
        activeSamples: activity.samples,
        activeMsPerTurnSampled: round((activity.meanActive * seconds * 1000) / MEASURED, 3),
        activeMsPerTurn: round(delta('active_time') / turns, 3),
        idleInTransactionMsPerTurn: round(delta('idle_in_transaction_time') / turns, 3),
        commitsPerTurn: round(delta('xact_commit') / turns, 2),
        rowsWrittenPerTurn: round((delta('tup_inserted') + delta('tup_updated') + delta('tup_deleted')) / turns, 2),
      };
    }

    const all = KINDS.flatMap((kind) => stats.latencies[kind]);
    const byKind = Object.fromEntries(KINDS.map((kind) => [kind, summarise(stats.latencies[kind])])) as Record<Kind, LatencySummary>;
    return {
      database,
      profiled: options.cpuProfDir !== undefined,
      measuredTurns: phase.completed,
      warmupTurns: WARMUP,
      workers: WORKERS,
      seconds: round(seconds, 3),
      turnsPerSecond: round(phase.completed / seconds, 1),
      latencyMs: summarise(all),
      p95ByKindMs: Object.fromEntries(KINDS.map((kind) => [kind, byKind[kind].p95])) as Record<Kind, number>,
      latencyByKindMs: byKind,
      rss: {
        earlyTurn: RSS_EARLY,
        earlyBytes,
        finalTurn: MEASURED,
        finalBytes,
        changePct: round((100 * (finalBytes - earlyBytes)) / earlyBytes, 2),
        trace,
        slopeMbPer1000Turns: round(slope(trace.map((point) => [point.turn / 1000, point.bytes / 1024 / 1024])), 2),
      },
      failures: stats.failures,
      totalTurns: stats.sent,
      failureRatePct: round((100 * stats.failures) / Math.max(1, stats.sent), 3),
      unexpectedReplies: stats.unexpected,
      failureSamples: stats.firstFailures,
      cpu: cpuFigures(cpuBefore, cpuAfter, MEASURED),
      postgres,
      serverExitCode,
      setupSeconds: round(setupSeconds, 2),
      machineBusyBeforePct,
    };
  } finally {
    agent?.destroy();
    await service?.stop();
    await dropDatabase?.();
    await removeDataDir();
  }
}

function summarise(values: readonly number[]): LatencySummary {
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

function slope(points: readonly (readonly [number, number])[]): number {
  if (points.length < 2) return 0;
  const mx = points.reduce((sum, [x]) => sum + x, 0) / points.length;
  const my = points.reduce((sum, [, y]) => sum + y, 0) / points.length;
  const sxy = points.reduce((sum, [x, y]) => sum + (x - mx) * (y - my), 0);
  const sxx = points.reduce((sum, [x]) => sum + (x - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

// ---------------------------------------------------------------- report

interface Verdicts {
  readonly p95: boolean;
  readonly throughput: boolean;
  readonly memory: boolean;
}

function verdicts(result: RunResult): Verdicts {
  return {
    p95: result.latencyMs.p95 <= TARGETS.p95Ms,
    throughput: result.turnsPerSecond >= TARGETS.turnsPerSecond,
    memory: Math.abs(result.rss.changePct) <= TARGETS.rssChangePct,
  };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const ms = (value: number) => `${value.toFixed(1)} ms`;
const mark = (ok: boolean) => (ok ? 'PASS' : 'MISS');

function table(result: RunResult): string {
  const v = verdicts(result);
  const note = result.database === 'postgres' ? '' : ' (targets are set for PostgreSQL; shown for comparison)';
  const title = result.database === 'postgres' ? 'PostgreSQL 15 (127.0.0.1:5432)' : 'embedded PGlite';
  const row = (label: string, value: string, target = '', verdict = '') =>
    `  ${label.padEnd(18)} ${value.padEnd(44)} ${target.padEnd(22)} ${verdict}`.trimEnd();
  const lines = [
    `chat turn on ${title}${result.profiled ? ' — UNDER --cpu-prof (figures inflated by the profiler)' : ''}: ` +
      `${result.workers} workers, ${result.warmupTurns} warm-up + ${result.measuredTurns} measured turns${note}`,
    row(
      'throughput',
      `${result.turnsPerSecond.toFixed(1)} turns/s (${result.seconds.toFixed(2)} s)`,
      `≥ ${TARGETS.turnsPerSecond} turns/s`,
      mark(v.throughput),
    ),
    row('latency p50', ms(result.latencyMs.p50)),
    row('latency p95', ms(result.latencyMs.p95), `≤ ${TARGETS.p95Ms} ms`, mark(v.p95)),
    row('latency p99', ms(result.latencyMs.p99)),
    row('latency max', ms(result.latencyMs.max)),
    row('latency mean', ms(result.latencyMs.mean)),
    row('p95 by kind', KINDS.map((kind) => `${kind} ${result.p95ByKindMs[kind].toFixed(1)}`).join(' | ') + ' ms'),
    row('p50 by kind', KINDS.map((kind) => `${kind} ${result.latencyByKindMs[kind].p50.toFixed(1)}`).join(' | ') + ' ms'),
    row(
      'server RSS',
      `${mb(result.rss.earlyBytes)} @${result.rss.earlyTurn} → ${mb(result.rss.finalBytes)} @${result.rss.finalTurn} (${result.rss.changePct >= 0 ? '+' : ''}${result.rss.changePct.toFixed(1)} %)`,
      `within ±${TARGETS.rssChangePct} %`,
      mark(v.memory),
    ),
    row(
      'RSS trace',
      `${result.rss.trace.map((point) => (point.bytes / 1024 / 1024).toFixed(0)).join(' ')} MB ` +
        `(every ${RSS_EVERY}; trend ${result.rss.slopeMbPer1000Turns >= 0 ? '+' : ''}${result.rss.slopeMbPer1000Turns.toFixed(1)} MB/1000 turns)`,
    ),
    row(
      'failures',
      `${result.failures} of ${result.totalTurns} turns (${result.failureRatePct.toFixed(2)} %), ${result.unexpectedReplies} unexpected replies`,
      '≤ 1 %',
      mark(result.failureRatePct <= 100 * MAX_FAILURE_RATE),
    ),
    row(
      'CPU per turn',
      `server ${result.cpu.serverMsPerTurn.toFixed(2)} ms, postgres ${result.cpu.postgresMsPerTurn.toFixed(2)} ms, client ${result.cpu.clientMsPerTurn.toFixed(2)} ms`,
    ),
    row(
      'CPU cores used',
      `server ${result.cpu.serverCores.toFixed(2)}, postgres ${result.cpu.postgresCores.toFixed(2)}, client ${result.cpu.clientCores.toFixed(2)}, ` +
        `other ${result.cpu.otherCores.toFixed(2)}; machine ${result.cpu.machineBusyPct.toFixed(0)} % of ${cpus().length}`,
    ),
  ];
  if (result.postgres) {
    const pg = result.postgres;
    lines.push(
      row(
        'postgres busy',
        `${pg.meanActiveBackends.toFixed(2)} active backends avg (max ${pg.maxActiveBackends}, ${pg.maxConnections} conns); idle-in-tx avg ${pg.meanIdleInTransactionBackends.toFixed(2)}`,
      ),
      row(
        'postgres per turn',
        `active ${pg.activeMsPerTurn.toFixed(2)} ms (sampled ${pg.activeMsPerTurnSampled.toFixed(2)} ms), idle-in-tx ${pg.idleInTransactionMsPerTurn.toFixed(2)} ms, ${pg.commitsPerTurn.toFixed(1)} commits, ${pg.rowsWrittenPerTurn.toFixed(1)} rows written`,
      ),
    );
  }
  if (result.failureSamples.length > 0) lines.push(`  first problems: ${result.failureSamples.join('\n                  ')}`);
  return lines.join('\n');
}

function writeResult(name: string, value: unknown): string {
  mkdirSync(RESULTS, { recursive: true });
  const file = join(RESULTS, `chat-turn-${name}.json`);
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
  return file;
}

function environment() {
  return {
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    platform: `${process.platform} ${process.arch}`,
    date: new Date().toISOString(),
  };
}

async function profileRun(out: (text: string) => void): Promise<{ result: RunResult; summary: ProfileSummary }> {
  const dir = await mkdtemp(join(tmpdir(), 'bridle-chat-turn-prof-'));
  const removeDir = onCleanup(`remove ${dir}`, () => rm(dir, { recursive: true, force: true }));
  try {
    const result = await benchDatabase('postgres', out, { cpuProfDir: dir });
    const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
    if (!file) throw new Error(`no .cpuprofile was written to ${dir} (server exit ${String(result.serverExitCode)})`);
    let path = join(dir, file);
    if (process.env.CHAT_TURN_KEEP_PROFILE === '1') {
      mkdirSync(RESULTS, { recursive: true });
      const kept = join(RESULTS, 'chat-turn-postgres.cpuprofile');
      writeFileSync(kept, readFileSync(path));
      path = kept;
    }
    return { result, summary: analyseCpuProfile(path, ROOT) };
  } finally {
    await removeDir();
  }
}

async function main(): Promise<number> {
  const started = performance.now();
  const only = process.env.CHAT_TURN_ONLY;
  const profileMode = process.env.CHAT_TURN_PROFILE ?? 'auto';
  const out = (text: string) => process.stdout.write(`${text}\n`);
  out(
    `bench:chat-turn — POST /api/:userId/chat on node ${MAIN.startsWith(ROOT + '/') ? MAIN.slice(ROOT.length + 1) : MAIN}; ${WORKERS} workers, ${WARMUP} warm-up + ${MEASURED} measured turns; ` +
      `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? '?'}`,
  );
  let exitCode = 0;
  let postgres: RunResult | undefined;
  for (const database of ['pglite', 'postgres'] as const) {
    if (only && only !== database) continue;
    out('');
    try {
      const result = await benchDatabase(database, out);
      if (database === 'postgres') postgres = result;
      out(table(result));
      const v = verdicts(result);
      const file = writeResult(database, {
        benchmark: 'chat-turn',
        environment: environment(),
        targets: database === 'postgres' ? TARGETS : null,
        verdicts: database === 'postgres' ? { p95: mark(v.p95), throughput: mark(v.throughput), memory: mark(v.memory) } : null,
        ...result,
      });
      out(`  → ${file.slice(ROOT.length + 1)}`);
    } catch (error) {
      exitCode = 1;
      out(`chat turn on ${database}: ABORTED — ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  if (postgres) {
    const v = verdicts(postgres);
    out('');
    out(
      `PostgreSQL targets: p95 ≤ ${TARGETS.p95Ms} ms ${mark(v.p95)} (${postgres.latencyMs.p95.toFixed(1)} ms) | ` +
        `≥ ${TARGETS.turnsPerSecond} turns/s ${mark(v.throughput)} (${postgres.turnsPerSecond.toFixed(1)}) | ` +
        `memory within ±${TARGETS.rssChangePct} % ${mark(v.memory)} (${postgres.rss.changePct.toFixed(1)} %)`,
    );
    const missed = !(v.p95 && v.throughput && v.memory);
    if (profileMode === 'always' || (profileMode === 'auto' && missed)) {
      out('');
      out('A target was missed (or CHAT_TURN_PROFILE=always): PostgreSQL once more with the server under node --cpu-prof …');
      try {
        const { result, summary } = await profileRun(out);
        out(table(result));
        out('');
        out(formatProfile(summary, 25));
        const file = writeResult('postgres-profile', {
          benchmark: 'chat-turn (PostgreSQL, server under --cpu-prof)',
          environment: environment(),
          run: result,
          profile: { ...summary, byFunction: summary.byFunction.slice(0, 100), byPackage: summary.byPackage.slice(0, 50) },
        });
        out(`  → ${file.slice(ROOT.length + 1)}`);
      } catch (error) {
        exitCode = 1;
        out(`profile run ABORTED — ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  out('');
  out(`bench:chat-turn finished in ${((performance.now() - started) / 1000).toFixed(1)} s (excluding the build)`);
  return exitCode;
}

main()
  .then(async (code) => {
    await cleanupAll();
    process.exitCode = code;
  })
  .catch(async (error: unknown) => {
    process.stderr.write(`bench:chat-turn failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await cleanupAll();
    process.exitCode = 1;
  });
