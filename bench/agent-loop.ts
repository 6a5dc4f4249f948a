import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Logger as NestCommonLogger } from '@nestjs/common';
import {
  Agent,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  setTracingDisabled,
  type StreamEvent,
  tool as agentsTool,
  Usage,
} from '@openai/agents';
import { generateText, type LanguageModel as AiLanguageModel, stepCountIs, tool as aiTool, zodSchema } from 'ai';
import { Logger as PinoNestLogger, PinoLogger } from 'nestjs-pino';
import { z } from 'zod';
import { AgentLoop, type AgentRunInput } from '../src/application/agent/agent-loop';
import { type Completion, type CompletionRequest, LanguageModel } from '../src/application/agent/ports/language-model.port';
import { type ToolCallContext, ToolGateway, type ToolResult } from '../src/application/agent/ports/tool-gateway.port';
import { Logger, type LogLine } from '../src/application/shared/ports/logger.port';
import { TODO_TOOLS } from '../src/application/todo/tools/todo-tool-definitions';
import { TODO_WORDS } from '../src/application/todo/todo-words';
import { type ToolArguments, validateToolArguments } from '../src/domain/agent/tool-call-validation';
import type { ToolDefinition } from '../src/domain/agent/tools';
import { DESCRIPTION_MAX_LENGTH, TASK_PRIORITIES, TITLE_MAX_LENGTH } from '../src/domain/todo/task';
import { loadConfig } from '../src/infrastructure/config/app-config';
import { NestLogger } from '../src/infrastructure/logging/nest-logger';
import { SystemClock } from '../src/infrastructure/system-clock';
import { AjvSchemaValidator } from '../src/infrastructure/validation/ajv-schema-validator';
import { busyCores, machineCpu, sleep, waitForQuietMachine } from './support/processes';
import { writeJson } from './support/results';
import { git } from './support/git';

/**
 * `npm run bench:agent-loop`: the agent loop in process, against the two loops someone would
 * use instead (issue 18, "an in-process harness"). One turn is what a chat turn asks of the
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

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number`);
  return value;
}

// ---------------------------------------------------------------- the script, shared by the three

const SYSTEM = "You manage the person's todo list with your tools. Answer briefly.";
const MESSAGE = 'add buy milk';
const TOOL = 'add_task';
const CALL_ID = 'call_add_task_1';
const ARGUMENTS = JSON.stringify({ title: 'Buy milk' });
const ANSWER = 'Added "Buy milk" to your list.';
const TOKENS = { input: 10, output: 5 };

/** What the tool keeps and answers, the same on every side: {task: TaskView}. */
class TaskList {
  readonly titles: string[] = [];

  add(title: string): { task: { number: number; title: string; description: string; priority: string; completed: boolean } } {
    this.titles.push(title);
    return { task: { number: this.titles.length, title, description: '', priority: 'medium', completed: false } };
  }
}

interface Side {
  readonly name: SideName;
  readonly label: string;
  /** One turn; throws when the answer is not the script's. */
  turn(): Promise<void>;
  readonly tasks: TaskList;
  readonly counters: { modelCalls: number };
}

type SideName = 'bridle' | 'agents' | 'ai';
const SIDES: readonly SideName[] = ['bridle', 'agents', 'ai'];

// ---------------------------------------------------------------- Bridle

class ScriptedModel extends LanguageModel {
  readonly provider = 'scripted';
  readonly model = 'script-1';

  constructor(private readonly counters: { modelCalls: number }) {
    super();
  }

  complete(request: CompletionRequest): Promise<Completion> {
    this.counters.modelCalls++;
    const usage = { promptTokens: TOKENS.input, completionTokens: TOKENS.output };
    if (request.messages[request.messages.length - 1]?.role === 'tool') {
      return Promise.resolve({ text: ANSWER, toolCalls: [], usage, finishReason: 'stop' });
    }
    return Promise.resolve({
      text: null,
      toolCalls: [{ id: CALL_ID, name: TOOL, arguments: ARGUMENTS }],
      usage,
      finishReason: 'tool_calls',
    });
  }
}

const SCHEMAS = new AjvSchemaValidator();

class InMemoryToolGateway extends ToolGateway {
  private readonly tools: readonly ToolDefinition[] = TODO_TOOLS.filter((definition) => definition.name === TOOL);

  constructor(private readonly tasks: TaskList) {
    super();
  }

  listTools(): Promise<readonly ToolDefinition[]> {
    return Promise.resolve(this.tools);
  }

  invoke(name: string, args: ToolArguments, _context: ToolCallContext): Promise<ToolResult> {
    // What the tool server checks before a tool runs; the peers' zod schemas do the same.
    const validation = validateToolArguments(this.tools, name, args, SCHEMAS);
    if (!validation.ok) return Promise.resolve({ ok: false, code: validation.code, message: validation.message });
    return Promise.resolve({ ok: true, data: this.tasks.add(String(validation.arguments.title)) });
  }
}

/** Drops every line: what the loop costs without a logger at all. */
class NullLogger extends Logger {
  info(_line: LogLine): void {}
  warn(_line: LogLine): void {}
  error(_line: LogLine): void {}
  withContext(): Logger {
    return this;
  }
}

/** The app's logger as the service wires it (CoreModule's NestLogger; app.useLogger(nestjs-pino's Logger)), at LOG_LEVEL=warn. */
function productionLogger(): Logger {
  const config = loadConfig({ LOG_LEVEL: 'warn' });
  const params = { pinoHttp: { level: config.logLevel } };
  NestCommonLogger.overrideLogger(new PinoNestLogger(new PinoLogger(params), params));
  return new NestLogger();
}

function bridle(): Side {
  const tasks = new TaskList();
  const counters = { modelCalls: 0 };
  const config = loadConfig({});
  const loop = new AgentLoop(
    new ScriptedModel(counters),
    new InMemoryToolGateway(tasks),
    new SystemClock(),
    NULL_LOGGER ? new NullLogger() : productionLogger(),
    SCHEMAS,
  );
  let turns = 0;
  return {
    name: 'bridle',
    label: NULL_LOGGER ? 'Bridle AgentLoop.run() (null logger)' : 'Bridle AgentLoop.run()',
    tasks,
    counters,
    async turn() {
      turns++;
      const input: AgentRunInput = {
        systemPrompt: SYSTEM,
        messages: [{ role: 'user', content: MESSAGE }],
        context: { userId: 'user-1', source: 'chat', conversationId: 'conversation-1', decisionId: `decision-${turns}` },
        limits: config.agentLimits,
        sampling: config.llmSampling,
        words: TODO_WORDS,
      };
      const result = await loop.run(input);
      if (result.text !== ANSWER || result.status !== 'completed' || result.toolCalls.length !== 1 || !result.toolCalls[0].success) {
        throw new Error(`bridle: unexpected turn: ${JSON.stringify(result)}`);
      }
    },
  };
}

// ---------------------------------------------------------------- @openai/agents

class ScriptedAgentsModel implements Model {
  constructor(private readonly counters: { modelCalls: number }) {}

  getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.counters.modelCalls++;
    const usage = new Usage({
      requests: 1,
      inputTokens: TOKENS.input,
      outputTokens: TOKENS.output,
      totalTokens: TOKENS.input + TOKENS.output,
    });
    const last: AgentInputItem | undefined = typeof request.input === 'string' ? undefined : request.input[request.input.length - 1];
    if (last?.type === 'function_call_result') {
      return Promise.resolve({
        usage,
        output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: ANSWER }] }],
      });
    }
    return Promise.resolve({
      usage,
      output: [{ type: 'function_call', callId: CALL_ID, name: TOOL, arguments: ARGUMENTS, status: 'completed' }],
    });
  }

  getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error('the benchmark does not stream');
  }
}

/** add_task's input as zod: the fields and bounds of TODO_TOOLS' JSON schema. */
function addTaskSchema(nullableOptionals: boolean) {
  const description = z.string().max(DESCRIPTION_MAX_LENGTH);
  const priority = z.enum(TASK_PRIORITIES);
  // The OpenAI Agents SDK makes tools strict: an optional field must be nullable there.
  return z.object({
    title: z.string().min(1).max(TITLE_MAX_LENGTH),
    description: nullableOptionals ? description.nullable().optional() : description.optional(),
    priority: nullableOptionals ? priority.nullable().optional() : priority.optional(),
  });
}

function agents(): Side {
  const tasks = new TaskList();
  const counters = { modelCalls: 0 };
  const addTask = agentsTool({
    name: TOOL,
    description: "Add a task to the person's list.",
    parameters: addTaskSchema(true),
    execute: ({ title }) => Promise.resolve(tasks.add(title)),
  });
  const agent = new Agent({ name: 'Todo assistant', instructions: SYSTEM, model: new ScriptedAgentsModel(counters), tools: [addTask] });
  const runner = new Runner({ tracingDisabled: true });
  return {
    name: 'agents',
    label: '@openai/agents run()',
    tasks,
    counters,
    async turn() {
      const result = await runner.run(agent, MESSAGE, { maxTurns: 5 });
      if (result.finalOutput !== ANSWER) throw new Error(`agents: unexpected turn: ${String(result.finalOutput)}`);
    },
  };
}

// ---------------------------------------------------------------- ai

type AiModelV4 = Extract<AiLanguageModel, { readonly specificationVersion: 'v4' }>;

function scriptedAiModel(counters: { modelCalls: number }): AiModelV4 {
  const usage = () => ({
    inputTokens: { total: TOKENS.input, noCache: TOKENS.input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: TOKENS.output, text: TOKENS.output, reasoning: undefined },
  });
  return {
    specificationVersion: 'v4',
    provider: 'scripted',
    modelId: 'script-1',
    supportedUrls: {},
    doGenerate(options) {
      counters.modelCalls++;
      if (options.prompt[options.prompt.length - 1]?.role === 'tool') {
        return Promise.resolve({
          content: [{ type: 'text', text: ANSWER }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: usage(),
          warnings: [],
        });
      }
      return Promise.resolve({
        content: [{ type: 'tool-call', toolCallId: CALL_ID, toolName: TOOL, input: ARGUMENTS }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: usage(),
        warnings: [],
      });
    },
    doStream() {
      throw new Error('the benchmark does not stream');
    },
  };
}

function ai(): Side {
  const tasks = new TaskList();
  const counters = { modelCalls: 0 };
  const model = scriptedAiModel(counters);
  const tools = {
    [TOOL]: aiTool({
      description: "Add a task to the person's list.",
      // zodSchema() once: a bare z.object here is turned into JSON Schema again on every model call.
      inputSchema: zodSchema(addTaskSchema(false)),
      execute: ({ title }) => Promise.resolve(tasks.add(title)),
    }),
  };
  return {
    name: 'ai',
    label: 'ai generateText()',
    tasks,
    counters,
    async turn() {
      const result = await generateText({ model, system: SYSTEM, prompt: MESSAGE, tools, stopWhen: stepCountIs(2) });
      if (result.text !== ANSWER || result.steps.length !== 2)
        throw new Error(`ai: unexpected turn: ${result.text} in ${result.steps.length} steps`);
    },
  };
}

// ---------------------------------------------------------------- measuring

interface Block {
  readonly turns: number;
  readonly ms: number;
  readonly latenciesUs: Float64Array;
}

/** `turns` turns, `concurrency` in flight; every turn's latency. Checks the tool ran once and the model twice per turn. */
async function block(side: Side, turns: number, concurrency: Concurrency): Promise<Block> {
  const latenciesUs = new Float64Array(turns);
  const toolsBefore = side.tasks.titles.length;
  const modelBefore = side.counters.modelCalls;
  let next = 0;
  const worker = async () => {
    while (next < turns) {
      const index = next++;
      const began = performance.now();
      await side.turn();
      latenciesUs[index] = (performance.now() - began) * 1000;
    }
  };
  const began = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const ms = performance.now() - began;
  const toolCalls = side.tasks.titles.length - toolsBefore;
  const modelCalls = side.counters.modelCalls - modelBefore;
  if (toolCalls !== turns || modelCalls !== 2 * turns) {
    throw new Error(
      `${side.name}: ${turns} turns made ${toolCalls} tool invocations and ${modelCalls} model calls (expected ${turns} and ${2 * turns})`,
    );
  }
  side.tasks.titles.length = 0;
  return { turns, ms, latenciesUs };
}

/** A full collection between blocks, so that a block does not pay for the garbage of the one before. */
const collect: () => void = (() => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  return typeof gc === 'function' ? gc : () => {};
})();

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
  lines.push('', '## Target (issue 18)', '', '| target | c | measured | |', '|---|---|---|---|');
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
  const make = { bridle, agents, ai };
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
