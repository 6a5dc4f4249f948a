import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { onCleanup, onExit } from './cleanup';
import { freePort, statFields, CLK_TCK } from './processes';

/**
 * A PostgreSQL cluster of the benchmark's own: initdb into a temp folder (as the `postgres`
 * OS user when run as root), started by pg_ctl on a free port of 127.0.0.1 with
 * pg_stat_statements (track = all, so statements inside triggers, functions and foreign-key
 * checks count too). Nothing else uses it, so its processes' CPU time is the benchmark's
 * alone. Stopped and deleted on success, failure and Ctrl-C; the shared server is not touched.
 */

const run = promisify(execFile);

/** A reading of the cluster's processes' CPU time (utime + stime), from /proc. */
export interface ClusterCpu {
  /** The postmaster's own CPU, plus what its children that ended used (its cutime + cstime). */
  readonly postmasterMs: number;
  /** Its children still running, by pid: CPU ms, and the database of a client backend (null for the other processes). */
  readonly children: ReadonlyMap<number, { readonly ms: number; readonly database: string | null }>;
}

/**
 * The cluster's CPU between two readings, charged to one database: everything except what
 * the client backends of the `elsewhere` databases used (another service that sits idle
 * meanwhile, its periodic jobs still running). A process that ended between the readings
 * counts wholly where it is not known: to the charged side.
 */
export function chargedCpu(
  before: ClusterCpu,
  after: ClusterCpu,
  database: string | undefined,
  elsewhere: readonly string[],
): { totalMs: number; backendsMs: number } {
  let total = after.postmasterMs - before.postmasterMs;
  for (const [pid, { ms }] of before.children) if (!after.children.has(pid)) total -= ms;
  let backends = 0;
  for (const [pid, child] of after.children) {
    const delta = child.ms - (before.children.get(pid)?.ms ?? 0);
    if (child.database !== null && elsewhere.includes(child.database)) continue;
    total += delta;
    if (child.database !== null && child.database === database) backends += delta;
  }
  return { totalMs: total, backendsMs: backends };
}

export interface StatementStat {
  readonly queryid: string;
  readonly toplevel: boolean;
  readonly query: string;
  readonly calls: number;
  readonly totalMs: number;
  readonly rows: number;
}

export interface DatabaseStats {
  readonly commits: number;
  readonly rollbacks: number;
  readonly rowsWritten: number;
}

export interface Cluster {
  readonly version: string;
  readonly port: number;
  readonly settings: Record<string, string>;
  urlOf(database: string): string;
  createDatabase(database: string): Promise<void>;
  dropDatabase(database: string): Promise<void>;
  cpu(): ClusterCpu;
  statements(database: string): Promise<Map<string, StatementStat>>;
  /** Entries pg_stat_statements evicted so far (a count that moves means statement figures are incomplete). */
  evictions(): Promise<number>;
  databaseStats(database: string): Promise<DatabaseStats>;
  query<T extends object>(database: string, text: string, values?: unknown[]): Promise<T[]>;
  stop(): Promise<void>;
}

/** The newest /usr/lib/postgresql/<version>/bin with initdb, or BENCH_PG_BIN. */
function binDir(): string {
  const chosen = process.env.BENCH_PG_BIN;
  if (chosen) return chosen;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((version) => existsSync(join(root, version, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0)
    throw new Error(`no PostgreSQL binaries under ${root} (set BENCH_PG_BIN to the folder that holds initdb and pg_ctl)`);
  return join(root, versions[0], 'bin');
}

export async function startCluster(): Promise<Cluster> {
  const bin = binDir();
  const asRoot = process.getuid?.() === 0;
  // initdb and the server refuse to run as root: as root, they run as the postgres OS user.
  const command = (tool: string, args: readonly string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] : [join(bin, tool), [...args]];
  const folder = await mkdtemp(join(tmpdir(), 'bridle-bench-pg-'));
  const data = join(folder, 'data');
  const removeFolder = () => rmSync(folder, { recursive: true, force: true });
  const removeFolderLater = onCleanup(`remove ${folder}`, () => Promise.resolve(removeFolder()));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(folder, uid, gid);
  }
  await run(...command('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']));

  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${folder}`,
    '-c listen_addresses=127.0.0.1',
    '-c shared_preload_libraries=pg_stat_statements',
    '-c pg_stat_statements.track=all',
    '-c pg_stat_statements.track_utility=on',
    '-c pg_stat_statements.max=10000',
    process.env.BENCH_PG_OPTIONS ?? '',
  ].join(' ');
  const pgCtl = (args: readonly string[]) => command('pg_ctl', ['-D', data, ...args]);
  let running = false;
  const stopNow = (mode: 'fast' | 'immediate') => {
    if (!running) return;
    running = false;
    const [file, args] = pgCtl(['stop', '-m', mode, '-w', '-t', '60']);
    execFileSync(file, args, { stdio: 'ignore' });
  };
  // Ctrl-C, an exception, or an exit without the undo stack: the cluster goes all the same.
  const forgetExit = onExit(() => {
    stopNow('immediate');
    removeFolder();
  });
  const stopLater = onCleanup('stop the private PostgreSQL cluster', async () => {
    if (running) {
      running = false;
      await run(...pgCtl(['stop', '-m', 'fast', '-w', '-t', '60'])).catch(() => undefined);
    }
  });
  running = true;
  await run(...pgCtl(['start', '-w', '-t', '60', '-l', join(folder, 'server.log'), '-o', options]));
  const postmasterPid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);

  const clients = new Map<string, Client>();
  const connection = async (database: string): Promise<Client> => {
    let client = clients.get(database);
    if (!client) {
      client = new Client({ host: '127.0.0.1', port, user: 'postgres', database });
      await client.connect();
      clients.set(database, client);
    }
    return client;
  };
  const query = async <T extends object>(database: string, text: string, values: unknown[] = []): Promise<T[]> =>
    (await (await connection(database)).query<T>(text, values)).rows;
  const closeClients = async () => {
    for (const client of clients.values()) await client.end().catch(() => undefined);
    clients.clear();
  };
  const closeClientsLater = onCleanup('close the cluster connections', closeClients);

  await query('postgres', 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const version = (await query<{ server_version: string }>('postgres', 'SHOW server_version'))[0].server_version;
  const settings = Object.fromEntries(
    (
      await query<{ name: string; setting: string; unit: string | null }>(
        'postgres',
        `SELECT name, setting, unit FROM pg_settings WHERE name = ANY($1) ORDER BY name`,
        [['shared_buffers', 'synchronous_commit', 'fsync', 'wal_level', 'max_connections', 'jit', 'work_mem', 'pg_stat_statements.track']],
      )
    ).map((row) => [row.name, row.unit ? `${row.setting} × ${row.unit}` : row.setting]),
  );

  return {
    version,
    port,
    settings,
    urlOf: (database) =>
      process.env.BENCH_PG_SOCKET === '1'
        ? `postgres://postgres@/${database}?host=${encodeURIComponent(folder)}&port=${port}`
        : `postgres://postgres@127.0.0.1:${port}/${database}`,
    createDatabase: async (database) => {
      await query('postgres', `CREATE DATABASE ${database}`);
    },
    dropDatabase: async (database) => {
      const client = clients.get(database);
      clients.delete(database);
      await client?.end();
      await query('postgres', `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    },
    cpu: () => clusterCpu(postmasterPid),
    statements: async (database) => {
      const rows = await query<{ queryid: string; toplevel: boolean; query: string; calls: string; total_exec_time: number; rows: string }>(
        'postgres',
        `SELECT s.queryid::text AS queryid, s.toplevel, s.query, s.calls, s.total_exec_time, s.rows
         FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1`,
        [database],
      );
      return new Map(
        rows.map((row) => [
          `${row.queryid}/${row.toplevel}`,
          {
            queryid: row.queryid,
            toplevel: row.toplevel,
            query: row.query,
            calls: Number(row.calls),
            totalMs: row.total_exec_time,
            rows: Number(row.rows),
          },
        ]),
      );
    },
    evictions: async () => Number((await query<{ dealloc: string }>('postgres', 'SELECT dealloc FROM pg_stat_statements_info'))[0].dealloc),
    databaseStats: async (database) => {
      const [row] = await query<{ xact_commit: string; xact_rollback: string; written: string }>(
        'postgres',
        `SELECT xact_commit, xact_rollback, tup_inserted + tup_updated + tup_deleted AS written FROM pg_stat_database WHERE datname = $1`,
        [database],
      );
      return { commits: Number(row.xact_commit), rollbacks: Number(row.xact_rollback), rowsWritten: Number(row.written) };
    },
    query,
    stop: async () => {
      await closeClientsLater();
      await stopLater();
      forgetExit();
      await removeFolderLater();
    },
  };
}

/** CPU of the cluster's processes, from /proc. */
function clusterCpu(postmasterPid: number): ClusterCpu {
  const ticksToMs = (ticks: number) => (ticks * 1000) / CLK_TCK;
  const own = statFields(postmasterPid);
  // The postmaster's cutime + cstime hold the CPU of the children it has reaped (backends that
  // ended, autovacuum workers): with them, a process that ends between two readings is counted.
  const postmasterMs = own ? ticksToMs(Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])) : 0;
  const children = new Map<number, { ms: number; database: string | null }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (!fields || Number(fields[1]) !== postmasterPid) continue;
    let title: string;
    try {
      title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue; // it ended meanwhile: the postmaster's cutime will have it
    }
    // A client backend's title: "postgres: [<cluster name>: ]<user> <database> <host>(<port>) <state>".
    const database = /^postgres: (?:\S+: )?\S+ (\S+) \S+\(\d+\)/.exec(title)?.[1] ?? null;
    children.set(Number(entry), { ms: ticksToMs(Number(fields[11]) + Number(fields[12])), database });
  }
  return { postmasterMs, children };
}
