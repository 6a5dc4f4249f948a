import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DIST, EXTRA_ENV, HOOK, NODE_ARGS, out, ROOT, SYNCHRONOUS_COMMIT } from './outreach-cycles-config';
import { onCleanup, trackChild } from './support/cleanup';
import type { Cluster } from './support/postgres-cluster';
import { sleep, startListener } from './support/processes';

// ---------------------------------------------------------------- processes

export interface Child {
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

export async function call<T>(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
  type = 'application/json',
): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': type }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 500)}`);
  return (text ? JSON.parse(text) : null) as T;
}

// ---------------------------------------------------------------- one database with a seeded campaign

export interface Setup {
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
export interface Server {
  readonly urlOf: (database: string) => string;
  readonly cluster: Cluster | null;
}

/** A database of its own, the service, an account and a campaign of about `size` tasks (leads with an email have 3), not started. */
export async function setUp(server: Server, size: number, tag: string): Promise<Setup> {
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

export function startWorker(setup: Setup, extra: Record<string, string>): Child {
  return spawnNode([...NODE_ARGS, '-r', HOOK, join(DIST, 'worker.js')], { ...setup.env, LOG_LEVEL: 'warn', ...extra });
}

export async function until(probe: () => Promise<boolean>, what: string, timeoutMs: number, workers: readonly Child[]): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}:\n${workers.map((w) => w.output().slice(-2000)).join('\n---\n')}`);
    await sleep(50);
  }
}

export function readCounts(dir: string): { statements: number; cycles: number } {
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

/** The server settings that change what a cycle costs: autovacuum (statistics, dead rows) and commit durability. */
export async function serverSettings(server: Server): Promise<Record<string, string>> {
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
