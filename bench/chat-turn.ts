import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runGroup } from './chat-turn-measure';
import { CHUNKS, COMMAND, FAKE, PARTIAL, plan, RESULTS, ROOT, TURNS } from './chat-turn-plan';
import { fixed, markdown, type Meta, verdicts } from './chat-turn-report';
import { type GroupFailure, type Result, round } from './chat-turn-results';
import type { Shared } from './chat-turn-services';
import { cleanupAll } from './support/cleanup';
import { git } from './support/git';
import { speedAround } from './support/machine-speed';
import { startCluster } from './support/postgres-cluster';
import { startListener } from './support/processes';
import { writeJson } from './support/results';

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
 * measured turn. Then the targets, met or missed. Writes bench/results/turns.md and
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
