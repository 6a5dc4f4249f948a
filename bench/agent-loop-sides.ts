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

/**
 * The three loops `npm run bench:agent-loop` times (its header says how), each a Side running one
 * turn of the same script, and a block of turns on a side, checked and timed.
 */

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

export interface Side {
  readonly name: SideName;
  readonly label: string;
  /** One turn; throws when the answer is not the script's. */
  turn(): Promise<void>;
  readonly tasks: TaskList;
  readonly counters: { modelCalls: number };
}

export type SideName = 'bridle' | 'agents' | 'ai';
export const SIDES: readonly SideName[] = ['bridle', 'agents', 'ai'];

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

export function bridle(nullLogger: boolean): Side {
  const tasks = new TaskList();
  const counters = { modelCalls: 0 };
  const config = loadConfig({});
  const loop = new AgentLoop(
    new ScriptedModel(counters),
    new InMemoryToolGateway(tasks),
    new SystemClock(),
    nullLogger ? new NullLogger() : productionLogger(),
    SCHEMAS,
  );
  let turns = 0;
  return {
    name: 'bridle',
    label: nullLogger ? 'Bridle AgentLoop.run() (null logger)' : 'Bridle AgentLoop.run()',
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

export function agents(): Side {
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

export function ai(): Side {
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

export interface Block {
  readonly turns: number;
  readonly ms: number;
  readonly latenciesUs: Float64Array;
}

/** `turns` turns, `concurrency` in flight; every turn's latency. Checks the tool ran once and the model twice per turn. */
export async function block(side: Side, turns: number, concurrency: number): Promise<Block> {
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
export const collect: () => void = (() => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  return typeof gc === 'function' ? gc : () => {};
})();
