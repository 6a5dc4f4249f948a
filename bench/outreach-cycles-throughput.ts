import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MAX_SECONDS, round, START_TIMEOUT_MS, TOP_STATEMENTS, WORKERS } from './outreach-cycles-config';
import { label } from './outreach-cycles-plans';
import { BackendCpu, cpuOf, databaseStats, minus, NO_CPU, plus } from './outreach-cycles-readings';
import { type Child, readCounts, type Server, setUp, startWorker, until } from './outreach-cycles-setup';
import { chargedCpu, type Cluster, type StatementStat } from './support/postgres-cluster';
import { machineCpu, sleep } from './support/processes';

// ---------------------------------------------------------------- throughput

export interface RunResult {
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

export interface ClusterFigures {
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

export async function throughput(server: Server, size: number): Promise<RunResult> {
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
