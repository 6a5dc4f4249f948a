import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { HEAP_SNAPSHOTS, MAIN, REFERENCE, ROOT, serverEnv, type Target } from './chat-turn-plan';
import { onCleanup } from './support/cleanup';
import { bridleUsers, Load, referenceUsers, send, usersNeeded } from './support/load';
import type { Cluster, DatabaseStats, StatementStat } from './support/postgres-cluster';
import { type Listener, startListener, startNodeFlags } from './support/processes';

// ---------------------------------------------------------------- one group

export interface Shared {
  readonly cluster: Cluster | undefined;
  readonly fake: Listener | undefined;
  readonly out: (text: string) => void;
}

export interface Running {
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

export async function fakeRequests(fake: Listener | undefined): Promise<number> {
  if (!fake) return 0;
  const reply = await send(undefined, fake.port, 'GET', '/stats');
  return (JSON.parse(reply.body) as { requests: number }).requests;
}

export async function start(t: Target, shared: Shared): Promise<Running> {
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
