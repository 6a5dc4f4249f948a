import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CHUNKS, QUIET_WAIT_MS, ROOT, rssEarlyTurn, STATS_SETTLE_MS, type Target } from './chat-turn-plan';
import { type Result, result, round } from './chat-turn-results';
import { fakeRequests, type Running, type Shared, start } from './chat-turn-services';
import { analyseCpuProfile, formatProfile, type ProfileSummary } from './support/cpu-profile';
import { liveHeapsOfSnapshots } from './support/heap-snapshot';
import { chargedCpu } from './support/postgres-cluster';
import { type PostgresFigures, postgresFigures } from './support/postgres-figures';
import { busyCores, machineCpu, processCpuMs, rssBytes, sleep, waitForQuietMachine } from './support/processes';

/** What is left of the quiet-wait budget of the whole benchmark. */
let quietBudgetMs = 5 * QUIET_WAIT_MS;

/**
 * Measures `turns` more turns of one target, adding up its CPU and time. `idle`: the other
 * targets of the group, whose services wait meanwhile (their backends' CPU is not this run's).
 */
export async function measure(run: Running, turns: number, shared: Shared, idle: readonly Running[]): Promise<void> {
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

export async function runGroup(group: readonly Target[], shared: Shared): Promise<Result[]> {
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
