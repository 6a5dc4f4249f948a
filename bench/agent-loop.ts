import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTracingDisabled } from '@openai/agents';
import { busyCores, machineCpu, sleep, waitForQuietMachine } from './support/processes';
import { intFromEnv } from './support/env';
import { writeJson } from './support/results';
import { git } from './support/git';
import { agents, ai, type Block, block, bridle, collect, type Side, type SideName, SIDES } from './agent-loop-sides';

/**
 * `npm run bench:agent-loop`: the agent loop in process, against the two loops someone would
 * use instead, in process (no HTTP, no database). One turn is what a chat turn asks of the
 * loop: "add buy milk" → the model calls `add_task {"title":"Buy milk"}` → the tool runs → the
 * model, seeing the tool's result last, answers in text. The model is scripted and answers at
 * once, the tool keeps its tasks in an array: what is timed is each loop's own work.
 *
 *   bridle  AgentLoop.run() (src/application/agent/agent-loop.ts) with the production limits
 *           and sampling (loadConfig({})), the real clock, the app's logger as production runs
 *           it at LOG_LEVEL=warn (NestLogger → Nest's Logger → nestjs-pino → pino at "warn":
 *           every line is built and handed down, pino drops it), a scripted LanguageModel and
 *           an in-memory ToolGateway: listTools() gives add_task as TODO_TOOLS defines it,
 *           invoke() checks the arguments against its schema as the tool server does
 *           (validateToolArguments; the peers' zod schemas do the same) and pushes the task.
 *           No database, no HTTP, no MCP, no metering, no audit.
 *   agents  @openai/agents Runner.run() (what run() calls, on a Runner of its own with
 *           tracing disabled) with an Agent whose one tool() is add_task (zod) and a model
 *           implementing its Model interface.
 *   ai      `ai` generateText() with one tool() add_task (zod), stopWhen: stepCountIs(2), and a
 *           model implementing LanguageModelV4 (`ai/test`'s MockLanguageModelV4 would keep
 *           every request it got; this one keeps none, as the others).
 * The three models follow one script: if the last message is the tool's result, a short
 * answer; otherwise one call of add_task. Every turn is checked: the answer came back, and
 * the round made exactly one tool invocation and two model calls per turn.
 *
 * Warm-up (every side), then rounds: in each, every side runs a block of N turns back to back
 * (c=1) and a block of M turns with 16 in flight (Promise.all of 16 workers), the sides'
 * order rotating round by round so that a change of load on the shared machine, or garbage
 * left by the side before, hits all; a full GC between blocks. N and M are set per side once,
 * from its warm-up, so that every block lasts about AGENT_LOOP_BLOCK_MS: the sides differ by
 * more than ten times in speed, and equal turn counts would give the fastest a window of the
 * machine's load ten times shorter than the others'. Per side and concurrency: turns/s over
 * all its blocks (and the slowest and fastest block), p50/p99 µs per turn, the ratio to the
 * faster peer. Writes bench/results/agent-loop.md and agent-loop.json.
 *
 * Both peers and Bridle run in one process: @openai/agents keeps its context in an
 * AsyncLocalStorage, which on Node 22 turns on promise hooks for every promise after its first
 * run; the service has them on too (nestjs-pino's per-request store, the unit of work).
 *
 * Knobs (with any of the first six set, results go to dist-bench/results/ instead):
 *   AGENT_LOOP_ROUNDS=10        rounds
 *   AGENT_LOOP_BLOCK_MS=1500    how long one block should last
 *   AGENT_LOOP_TURNS=n          n turns per block for every side instead (c=1 and c=16)
 *   AGENT_LOOP_WARMUP=2000      warm-up turns per side (half at c=1, half at c=16)
 *   AGENT_LOOP_ONLY=bridle,ai   run only these sides (for a profile: node --cpu-prof)
 *   AGENT_LOOP_LOGGER=null      Bridle with a logger that drops every line before building it
 *   AGENT_LOOP_QUIET_WAIT_S=30  before measuring, wait at most this long for the machine to calm down
 */

const ROOT = join(__dirname, '..', '..');
const COMMAND = 'npm run bench:agent-loop';
const KNOBS = ['AGENT_LOOP_ROUNDS', 'AGENT_LOOP_BLOCK_MS', 'AGENT_LOOP_TURNS', 'AGENT_LOOP_WARMUP', 'AGENT_LOOP_ONLY', 'AGENT_LOOP_LOGGER'];
const PARTIAL = KNOBS.some((name) => (process.env[name] ?? '') !== '');
const RESULTS = PARTIAL ? join(ROOT, 'dist-bench', 'results') : join(ROOT, 'bench', 'results');

const ROUNDS = intFromEnv('AGENT_LOOP_ROUNDS', 10);
const BLOCK_MS = intFromEnv('AGENT_LOOP_BLOCK_MS', 1_500);
const FIXED_TURNS = process.env.AGENT_LOOP_TURNS ? intFromEnv('AGENT_LOOP_TURNS', 1) : null;
const WARMUP = intFromEnv('AGENT_LOOP_WARMUP', 2_000);
/** Turns per block at least, however slow a side. */
const MIN_BLOCK_TURNS = 100;
const QUIET_WAIT_MS = intFromEnv('AGENT_LOOP_QUIET_WAIT_S', 30) * 1000;
const NULL_LOGGER = process.env.AGENT_LOOP_LOGGER === 'null';
const CONCURRENCIES = [1, 16] as const;
type Concurrency = (typeof CONCURRENCIES)[number];
/** In-process loop: ≥ 1.5× the faster of the two peers' turns/s with the same scripted model. */
const TARGET_FACTOR = 1.5;

// ---------------------------------------------------------------- figures

interface Latency {
  readonly p50: number;
  readonly p99: number;
  readonly mean: number;
}

interface Figures {
  readonly side: SideName;
  readonly label: string;
  readonly concurrency: Concurrency;
  readonly turns: number;
  readonly seconds: number;
  readonly turnsPerSecond: number;
  /** Turns per block, and the slowest and the fastest block (one per round). */
  readonly blockTurns: number;
  readonly blockTurnsPerSecond: { readonly min: number; readonly max: number };
  readonly latencyUs: Latency;
  /** Tool invocations and model calls per turn, counted by the tool and the model (checked: 1 and 2). */
  readonly toolCallsPerTurn: number;
  readonly modelCallsPerTurn: number;
  /** Bridle's turns/s over the faster peer's (null for the peers). */
  readonly ratioToFasterPeer: number | null;
}

function percentile(sorted: Float64Array, q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function figures(side: Side, concurrency: Concurrency, blocks: readonly Block[]): Omit<Figures, 'ratioToFasterPeer'> {
  const turns = blocks.reduce((sum, b) => sum + b.turns, 0);
  const ms = blocks.reduce((sum, b) => sum + b.ms, 0);
  const all = new Float64Array(turns);
  let at = 0;
  for (const b of blocks) {
    all.set(b.latenciesUs, at);
    at += b.turns;
  }
  const mean = all.reduce((sum, value) => sum + value, 0) / Math.max(1, turns);
  all.sort();
  const rates = blocks.map((b) => (b.turns * 1000) / b.ms);
  return {
    side: side.name,
    label: side.label,
    concurrency,
    turns,
    blockTurns: blocks[0]?.turns ?? 0,
    seconds: round(ms / 1000, 2),
    turnsPerSecond: Math.round((turns * 1000) / ms),
    blockTurnsPerSecond: { min: Math.round(Math.min(...rates)), max: Math.round(Math.max(...rates)) },
    latencyUs: { p50: round(percentile(all, 0.5), 1), p99: round(percentile(all, 0.99), 1), mean: round(mean, 1) },
    toolCallsPerTurn: 1,
    modelCallsPerTurn: 2,
  };
}

// ---------------------------------------------------------------- report

const LABELS: Record<SideName, string> = { bridle: 'Bridle', agents: '@openai/agents', ai: 'ai' };

interface Verdict {
  readonly concurrency: Concurrency;
  readonly bridle: number;
  readonly fasterPeer: SideName;
  readonly fasterPeerTurnsPerSecond: number;
  readonly ratio: number;
  readonly met: boolean;
}

function verdicts(results: readonly Figures[]): Verdict[] {
  const list: Verdict[] = [];
  for (const concurrency of CONCURRENCIES) {
    const at = results.filter((r) => r.concurrency === concurrency);
    const own = at.find((r) => r.side === 'bridle');
    const peers = at.filter((r) => r.side !== 'bridle').sort((a, b) => b.turnsPerSecond - a.turnsPerSecond);
    if (!own || peers.length === 0) continue;
    const ratio = own.turnsPerSecond / peers[0].turnsPerSecond;
    list.push({
      concurrency,
      bridle: own.turnsPerSecond,
      fasterPeer: peers[0].side,
      fasterPeerTurnsPerSecond: peers[0].turnsPerSecond,
      ratio: round(ratio, 2),
      met: ratio >= TARGET_FACTOR,
    });
  }
  return list;
}

interface Meta {
  readonly date: string;
  readonly seconds: number;
  readonly commit: string;
  readonly dirty: readonly string[];
  readonly node: string;
  readonly cpu: string;
  readonly otherLoadCores: number;
  readonly versions: Record<string, string>;
}

function markdown(results: readonly Figures[], list: readonly Verdict[], meta: Meta): string {
  const lines = [
    '# The agent loop in process',
    '',
    `\`${COMMAND}\`${PARTIAL ? ' (a partial run: AGENT_LOOP_* knobs set)' : ''}, ${meta.date}, ${meta.seconds.toFixed(0)} s; commit ${meta.commit}` +
      `${meta.dirty.length > 0 ? ` with uncommitted changes in ${meta.dirty.length} files under src/` : ''}; node ${meta.node}; ${meta.cpu}, ` +
      `shared with other engineers' work (other load while measuring: ${meta.otherLoadCores.toFixed(2)} cores on average); ` +
      `${Object.entries(meta.versions)
        .map(([name, version]) => `${name} ${version}`)
        .join(', ')}.`,
    '',
    `One turn: the scripted model calls add_task once, then answers. After ${WARMUP} warm-up turns, ${ROUNDS} interleaved rounds; in each, ` +
      `every side runs one block at c=1 and one at c=16, ${FIXED_TURNS === null ? `each of about ${BLOCK_MS} ms (turns per block set from the warm-up)` : `each of ${FIXED_TURNS} turns`}. ` +
      "turns/s over all its blocks (slowest–fastest block); latency per turn in µs, from the turn's start to its end.",
    '',
    `Bridle's logger: ${NULL_LOGGER ? 'one that drops every line (AGENT_LOOP_LOGGER=null)' : "the app's (NestLogger → Nest's Logger → nestjs-pino) at LOG_LEVEL=warn, as production runs: every info line is built, pino drops it"}.`,
    '',
    '| loop | c | turns | turns/s (blocks) | p50 / p99 µs | × faster peer |',
    '|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    lines.push(
      `| ${r.label} | ${r.concurrency} | ${ROUNDS} × ${r.blockTurns} | ${r.turnsPerSecond} (${r.blockTurnsPerSecond.min}–${r.blockTurnsPerSecond.max}) | ` +
        `${r.latencyUs.p50.toFixed(0)} / ${r.latencyUs.p99.toFixed(0)} | ${r.ratioToFasterPeer === null ? '' : `${r.ratioToFasterPeer.toFixed(2)}×`} |`,
    );
  }
  lines.push('', '## Target', '', '| target | c | measured | |', '|---|---|---|---|');
  for (const v of list)
    lines.push(
      `| ≥ ${TARGET_FACTOR}× the faster peer's turns/s | ${v.concurrency} | ${v.bridle} against ${LABELS[v.fasterPeer]}'s ${v.fasterPeerTurnsPerSecond} turns/s: ${v.ratio.toFixed(2)}× | ${v.met ? 'met' : '**missed**'} |`,
    );
  return `${lines.join('\n')}\n`;
}

function version(name: string): string {
  return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const began = performance.now();
  const out = (text: string) => process.stdout.write(`${text}\n`);
  setTracingDisabled(true);
  const only = (process.env.AGENT_LOOP_ONLY ?? '').split(',').filter((name) => name.trim() !== '');
  const unknown = only.filter((name) => !SIDES.includes(name as SideName));
  if (unknown.length > 0) throw new Error(`AGENT_LOOP_ONLY: no side named ${unknown.join(', ')} (sides: ${SIDES.join(', ')})`);
  const make = { bridle: () => bridle(NULL_LOGGER), agents, ai };
  const sides = SIDES.filter((name) => only.length === 0 || only.includes(name)).map((name) => make[name]());
  const cpuText = `${cpus().length} × ${cpus()[0]?.model.trim() ?? '?'}`;
  out(
    `${COMMAND}: ${sides.map((s) => s.name).join(', ')}; ${ROUNDS} rounds, blocks of ${FIXED_TURNS ?? `about ${BLOCK_MS} ms`}; ` +
      `node ${process.version}; ${cpuText}${PARTIAL ? `; partial (results in ${RESULTS.slice(ROOT.length + 1)})` : ''}`,
  );

  const key = (side: Side, concurrency: Concurrency) => `${side.name}/c${concurrency}`;
  const blockTurns = new Map<string, number>();
  for (const side of sides) {
    for (const concurrency of CONCURRENCIES) {
      const warm = await block(side, Math.ceil(WARMUP / 2), concurrency);
      const turns = FIXED_TURNS ?? Math.max(MIN_BLOCK_TURNS, Math.round((warm.turns * BLOCK_MS) / warm.ms));
      blockTurns.set(key(side, concurrency), turns);
    }
  }
  out(`  warmed up (${WARMUP} turns each); turns per block: ${[...blockTurns].map(([name, turns]) => `${name} ${turns}`).join(', ')}`);
  await waitForQuietMachine(out, QUIET_WAIT_MS);

  const blocks = new Map<string, Block[]>();
  const machineBefore = machineCpu();
  const ownBefore = process.cpuUsage();
  const roundsBegan = performance.now();
  for (let r = 0; r < ROUNDS; r++) {
    const order = sides.map((_, i) => sides[(i + r) % sides.length]);
    for (const concurrency of CONCURRENCIES) {
      for (const side of order) {
        collect();
        await sleep(5);
        const b = await block(side, blockTurns.get(key(side, concurrency))!, concurrency);
        blocks.set(key(side, concurrency), [...(blocks.get(key(side, concurrency)) ?? []), b]);
      }
    }
    out(
      `  round ${r + 1}/${ROUNDS}: ${CONCURRENCIES.map((c) => {
        const rates = order.map((s) => {
          const last = blocks.get(key(s, c))!.at(-1)!;
          return `${s.name} ${Math.round((last.turns * 1000) / last.ms)}`;
        });
        return `c=${c} ${rates.join(', ')}`;
      }).join('; ')} turns/s`,
    );
  }
  // Cores busy over the rounds, less this process's own.
  const busy = busyCores(machineBefore, machineCpu());
  const own = process.cpuUsage(ownBefore);
  const otherLoadCores = Math.max(0, busy - (own.user + own.system) / 1000 / Math.max(1, performance.now() - roundsBegan));

  const partial = sides.flatMap((side) => CONCURRENCIES.map((c) => figures(side, c, blocks.get(key(side, c)) ?? [])));
  const results: Figures[] = partial.map((r) => {
    if (r.side !== 'bridle') return { ...r, ratioToFasterPeer: null };
    const peers = partial.filter((p) => p.side !== 'bridle' && p.concurrency === r.concurrency);
    const faster = Math.max(...peers.map((p) => p.turnsPerSecond));
    return { ...r, ratioToFasterPeer: peers.length === 0 ? null : round(r.turnsPerSecond / faster, 2) };
  });
  const list = verdicts(results);
  const meta: Meta = {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    seconds: (performance.now() - began) / 1000,
    commit: git(ROOT, ['rev-parse', '--short=12', 'HEAD']),
    dirty: git(ROOT, ['status', '--porcelain', '--', 'src'])
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.slice(3)),
    node: process.version,
    cpu: cpuText,
    otherLoadCores: round(otherLoadCores, 2),
    versions: { '@openai/agents': version('@openai/agents'), ai: version('ai'), zod: version('zod') },
  };
  const report = markdown(results, list, meta);
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, 'agent-loop.md'), report);
  await writeJson(join(RESULTS, 'agent-loop.json'), {
    benchmark: 'agent loop in process',
    command: COMMAND,
    partial: PARTIAL,
    knobs: Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('AGENT_LOOP_'))),
    date: meta.date,
    seconds: round(meta.seconds, 1),
    git: { commit: meta.commit, uncommittedSrc: meta.dirty },
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model.trim(),
      memoryGb: round(totalmem() / 1024 ** 3, 1),
      kernel: release(),
      loadavgAtEnd: loadavg(),
      otherLoadCores: meta.otherLoadCores,
    },
    node: process.version,
    versions: meta.versions,
    bridleLogger: NULL_LOGGER ? 'null (drops every line)' : 'NestLogger → nestjs-pino → pino at LOG_LEVEL=warn',
    turns: { rounds: ROUNDS, blockMs: FIXED_TURNS ? null : BLOCK_MS, perBlock: Object.fromEntries(blockTurns), warmup: WARMUP },
    targets: list,
    results,
  });
  out('');
  out(report);
  out(`→ ${join(RESULTS, 'agent-loop.md').slice(ROOT.length + 1)} and agent-loop.json`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${COMMAND} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
