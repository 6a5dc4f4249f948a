import { Injectable } from '@nestjs/common';
import type { PendingConfirmation } from '../../domain/agent/confirmation';
import type { AgentLimits } from '../../domain/agent/limits';
import type { Amount } from '../../domain/agent/money';
import { NO_TOOL_WORDS } from '../../domain/agent/tool-words';
import { Clock } from '../shared/ports/clock.port';
import { Logger } from '../shared/ports/logger.port';
import { NO_TRACER, Tracer } from '../shared/ports/tracer.port';
import { type AgentRunInput, type AgentRunResult, newRunState } from './loop/agent-run';
import { ConfirmedRun } from './loop/confirmed-run';
import { ModelCall } from './loop/model-call';
import { ModelToolCall } from './loop/model-tool-call';
import { ToolInvocation } from './loop/tool-invocation';
import { ToolLoop } from './loop/tool-loop';
import { endTurn } from './loop/turn-end';
import { LanguageModel, type TokenUsage } from './ports/language-model.port';
import { SchemaValidator } from './ports/schema-validator.port';
import { ToolGateway } from './ports/tool-gateway.port';

export type { AgentRunInput, AgentRunResult, TurnObserver } from './loop/agent-run';

/**
 * The agent loop both products share: ask the model, validate its tool calls, run them
 * through the gateway, feed results back, until a final answer or a limit. The model is
 * an untrusted user: nothing it proposes runs without the domain policies' consent.
 *
 * The parts are in `loop/`: the model call with its budget (ModelCall), one call through
 * the gateway (ToolInvocation), what becomes of a call the model asked for (ModelToolCall),
 * the bulk change (bulkChange), the turn's loop (ToolLoop), the confirmed run (ConfirmedRun),
 * and how a turn ends (TurnEnd, endTurn). This class bounds each run by the turn's deadline.
 */
@Injectable()
export class AgentLoop {
  private readonly modelCall: ModelCall;
  private readonly toolLoop: ToolLoop;
  private readonly confirmedRun: ConfirmedRun;

  constructor(
    private readonly model: LanguageModel,
    private readonly gateway: ToolGateway,
    clock: Clock,
    logger: Logger,
    schemas: SchemaValidator,
    tracer: Tracer = NO_TRACER,
  ) {
    const log = logger.withContext(AgentLoop.name);
    const invocation = new ToolInvocation(gateway, clock, tracer);
    this.modelCall = new ModelCall(model, clock, log);
    this.toolLoop = new ToolLoop(gateway, this.modelCall, new ModelToolCall(invocation, schemas), schemas, log);
    this.confirmedRun = new ConfirmedRun(invocation, this.modelCall);
  }

  get provider(): { readonly provider: string; readonly model: string } {
    return { provider: this.model.provider, model: this.model.model };
  }

  /** The names of the tools the model is offered, as their definitions say (listed once). */
  async toolNames(): Promise<readonly string[]> {
    return (await this.gateway.listTools()).map((tool) => tool.name);
  }

  async run(input: AgentRunInput): Promise<AgentRunResult> {
    return withDeadline(input.limits, async (signal) => {
      const { state, end } = await this.toolLoop.run(input, signal);
      return endTurn(state, input, end);
    });
  }

  /** Runs what the person confirmed, then lets the model word the outcome (ConfirmedRun). */
  async runConfirmed(input: AgentRunInput, action: PendingConfirmation): Promise<AgentRunResult> {
    return withDeadline(input.limits, async (signal) => {
      const { state, end } = await this.confirmedRun.run(input, action, signal);
      return endTurn(state, input, end);
    });
  }

  /**
   * One model call without tools that answers `text` under `systemPrompt` (a summary, say),
   * bounded to `maxChars`, within the turn's deadline and the person's budget.
   * @returns null when the model failed (logged).
   */
  async complete(
    input: Pick<AgentRunInput, 'context' | 'limits' | 'sampling' | 'budget'>,
    request: { systemPrompt: string; text: string; maxChars: number; maxTokens: number },
  ): Promise<{ text: string; usage: TokenUsage; cost: Amount } | null> {
    const run: AgentRunInput = {
      ...input,
      // No tools are offered: nothing of one is said.
      words: NO_TOOL_WORDS,
      systemPrompt: request.systemPrompt,
      messages: [{ role: 'user', content: request.text }],
      sampling: { ...input.sampling, maxTokens: Math.min(input.sampling.maxTokens, request.maxTokens) },
      limits: { ...input.limits, maxReplyChars: request.maxChars },
    };
    const state = newRunState(run, 0);
    return withDeadline(run.limits, async (signal) => {
      try {
        const call = { systemPrompt: run.systemPrompt, messages: run.messages, tools: [], toolChoice: 'none' as const, signal };
        await this.modelCall.ask(run, state, call, 1);
        return state.reply.value === '' ? null : { text: state.reply.value, usage: state.usage, cost: state.cost };
      } catch (error) {
        this.modelCall.failure(run, error, signal, 1);
        return null;
      }
    });
  }
}

async function withDeadline<T>(limits: AgentLimits, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.turnTimeoutMs);
  try {
    return await run(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}
