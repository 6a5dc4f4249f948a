import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import {
  DIST,
  EXPLAIN,
  EXTRA_ENV,
  LABEL,
  NODE_ARGS,
  out,
  PRIVATE,
  RESULTS,
  SHARED_SERVER,
  SIZES,
  TARGETS,
  WORKERS,
} from './outreach-cycles-config';
import { plans } from './outreach-cycles-plans';
import { markdown } from './outreach-cycles-report';
import { type Server, serverSettings } from './outreach-cycles-setup';
import { type RunResult, throughput } from './outreach-cycles-throughput';
import { cleanupAll } from './support/cleanup';
import { speedAround } from './support/machine-speed';
import { startCluster } from './support/postgres-cluster';
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
