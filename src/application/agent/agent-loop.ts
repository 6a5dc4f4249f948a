import { Injectable } from '@nestjs/common';
import {
  BULK_CHANGE,
  BULK_CHANGES_MAX,
  bulkChangeArguments,
  bulkChangeCalls,
  bulkChangePrompt,
  CONFIRMATION_STALE,
  type PendingConfirmation,
  type PlannedCall,
} from '../../domain/agent/confirmation';
import { decisionOf, type DecisionType, type TurnFinishReason, type TurnStatus } from '../../domain/agent/decision';
import { classifyModelFailure, type FailureClass, failureSentence, TREATMENTS, WARNINGS } from '../../domain/agent/failures';
import type { AgentLimits, ModelSampling } from '../../domain/agent/limits';
import { LanguageModelError } from '../../domain/agent/language-model-errors';
import { recordedArguments, recordedToolName } from '../../domain/agent/model-output';
import { Reply } from '../../domain/agent/reply';
import { promptTokensAtMost, TokenBudgetSpentError } from '../../domain/agent/token-budget';
import { parseToolCall, type ToolArguments, validateToolArguments, validateToolCall } from '../../domain/agent/tool-call-validation';
import type { AgentMessage, ToolCallRequest, ToolDefinition } from '../../domain/agent/tools';
import type { ToolCallRecord } from '../../domain/chat/conversation';
import { Clock } from '../shared/ports/clock.port';
import { type Completion, type CompletionRequest, LanguageModel, type TokenUsage } from './ports/language-model.port';
import { SchemaValidator } from './ports/schema-validator.port';
import { type ToolCallContext, ToolGateway, type ToolResult } from './ports/tool-gateway.port';
import type { DryRunResult } from './ports/toolbox.port';
import type { TokenBudget, TokenReservation } from './ports/token-budget.port';
import { Logger } from '../shared/ports/logger.port';
import { NO_TRACER, Tracer } from '../shared/ports/tracer.port';

/** Told about a turn's tool calls as they happen (e.g. to stream them to a client). */
export interface TurnObserver {
  toolCall?(call: { readonly tool: string; readonly arguments: ToolArguments | string }): void;
  toolResult?(record: ToolCallRecord): void;
  /** A piece of the reply as it is made (the model's tokens as the provider streams them); joined, the pieces are the reply. */
  text?(piece: string): void;
  /**
   * The reply is `text` instead of the pieces told so far: the model's words failed the check
   * made before a reply is stored (reply-check.ts). Told at most once, after every piece.
   */
  replace?(text: string): void;
}

export interface AgentRunInput {
  readonly systemPrompt: string;
  /** The conversation window, ending with the message to answer. */
  readonly messages: readonly AgentMessage[];
  readonly context: ToolCallContext & { readonly decisionId: string };
  readonly limits: AgentLimits;
  readonly sampling: ModelSampling;
  /** The person's daily token budget: each model call reserves from it first. */
  readonly budget?: TokenBudget;
  readonly observer?: TurnObserver;
  /** Named by the sentence after an unexpected failure (SUPPORT_CONTACT). */
  readonly supportContact?: string | null;
}

export interface AgentRunResult {
  readonly text: string;
  /** Of `text`: the model's words, which the chat checks before anyone reads them (reply-check.ts). */
  readonly modelWords: string;
  /** Of `text`: the server's own sentences (a question, a failure), in order. */
  readonly serverSentences: readonly string[];
  readonly status: TurnStatus;
  readonly finishReason: TurnFinishReason;
  /** Set when the answer may be incomplete: a limit was reached, or the answer was cut. */
  readonly warning: string | null;
  readonly decisionType: DecisionType;
  readonly iterations: number;
  readonly toolCalls: readonly ToolCallRecord[];
  readonly usage: TokenUsage;
  readonly failure: { readonly class: FailureClass; readonly providerRequestId: string | null } | null;
  /** A destructive call the model asked for: stored, and put to the person as a question. */
  readonly confirmation: { readonly tool: string; readonly arguments: ToolArguments; readonly prompt: string } | null;
}

/** Told to the model for the call that words the answer when a limit is reached. */
const LIMIT_NOTE =
  'You have used every step allowed for this request, so no more tools can run. Answer now from the results above: ' +
  'say what was done and what is left, briefly.';

/** Tool errors that mean the call broke (the gateway failed or timed out), not that the tool said no. */
const BROKEN_TOOL_CALLS = new Set(['UNAVAILABLE', 'TIMEOUT']);

/** What a tool's name looks like (ours are snake_case words): anything else is not one. */
const TOOL_NAME_SHAPE = /^[a-z][a-z0-9_]{0,63}$/;

/** Why a model call that asked for no tools ended the turn. */
function answeredReason(completion: Completion): TurnFinishReason {
  return completion.finishReason === 'length' || completion.finishReason === 'content_filter' ? completion.finishReason : 'stop';
}

type CallOutcome =
  | { readonly kind: 'result'; readonly record: ToolCallRecord; readonly message: AgentMessage }
  | { readonly kind: 'confirm'; readonly record: ToolCallRecord; readonly dryRun: DryRunResult };

/** Mutable bookkeeping of one run; never outlives it. */
interface RunState {
  readonly reply: Reply;
  readonly records: ToolCallRecord[];
  usage: TokenUsage;
  toolCalls: number;
  /** Calls run this turn that change something the person has (ToolDefinition.changesExisting). */
  changes: number;
  lastToolErrorCode: string | null;
}

/**
 * The agent loop both products share: ask the model, validate its tool calls, run them
 * through the gateway, feed results back, until a final answer or a limit. The model is
 * an untrusted user: nothing it proposes runs without the domain policies' consent.
 */
@Injectable()
export class AgentLoop {
  private readonly logger: Logger;

  constructor(
    private readonly model: LanguageModel,
    private readonly gateway: ToolGateway,
    private readonly clock: Clock,
    logger: Logger,
    private readonly schemas: SchemaValidator,
    private readonly tracer: Tracer = NO_TRACER,
  ) {
    this.logger = logger.withContext(AgentLoop.name);
  }

  get provider(): { readonly provider: string; readonly model: string } {
    return { provider: this.model.provider, model: this.model.model };
  }

  /** The names of the tools the model is offered, as their definitions say (listed once). */
  async toolNames(): Promise<readonly string[]> {
    return (await this.gateway.listTools()).map((tool) => tool.name);
  }

  async run(input: AgentRunInput): Promise<AgentRunResult> {
    return this.withDeadline(input.limits, (signal) => this.loop(input, signal));
  }

  /**
   * Runs what the person confirmed (exactly the stored call, or each call of a bulk change),
   * then lets the model word the outcome without tools. If the server finds the person's yes
   * no longer covers what is there, nothing ran: its own words are the answer, with any new
   * question it asks.
   */
  async runConfirmed(input: AgentRunInput, action: PendingConfirmation): Promise<AgentRunResult> {
    return this.withDeadline(input.limits, async (signal) => {
      const bulk = action.tool === BULK_CHANGE ? (bulkChangeCalls(action.arguments) ?? []) : null;
      const planned: PlannedCall[] = bulk ?? [{ tool: action.tool, arguments: action.arguments }];
      const state = newRunState(input, planned.length);
      const calls: ToolCallRequest[] = planned.map((call, i) => ({
        id: bulk ? `confirmed-${action.id}-${i}` : `confirmed-${action.id}`,
        name: call.tool,
        arguments: JSON.stringify(call.arguments),
      }));
      const results: AgentMessage[] = [];
      for (const [i, call] of calls.entries()) {
        input.observer?.toolCall?.({ tool: call.name, arguments: planned[i].arguments });
        // A bulk change's calls are ordinary changes, run as such: `confirmed` is a deletion's
        // yes, and no deletion can ride in on one.
        const outcome = await this.invoke(call, planned[i].arguments, input, signal, state, bulk ? {} : { confirmed: true });
        state.records.push(outcome.record);
        input.observer?.toolResult?.(outcome.record);
        if (!bulk && !outcome.result.ok && outcome.result.code === CONFIRMATION_STALE) {
          const askAgain = (outcome.result.details as { askAgain?: DryRunResult | null } | undefined)?.askAgain;
          return this.finish(state, input, {
            say: outcome.result.message,
            status: 'completed',
            finishReason: askAgain ? 'confirmation_required' : 'stop',
            iterations: 0,
            confirmation: askAgain ? { tool: action.tool, arguments: askAgain.arguments, prompt: askAgain.prompt } : undefined,
          });
        }
        results.push(outcome.message);
      }
      const messages: AgentMessage[] = [...input.messages, { role: 'assistant', content: null, toolCalls: calls }, ...results];
      try {
        const completion = await this.ask(
          input,
          state,
          { systemPrompt: input.systemPrompt, messages, tools: [], toolChoice: 'none', signal },
          1,
        );
        return this.finish(state, input, { status: 'completed', finishReason: answeredReason(completion), iterations: 1 });
      } catch (error) {
        return this.modelFailure(state, input, error, signal, 1);
      }
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
  ): Promise<{ text: string; usage: TokenUsage } | null> {
    const run: AgentRunInput = {
      ...input,
      systemPrompt: request.systemPrompt,
      messages: [{ role: 'user', content: request.text }],
      sampling: { ...input.sampling, maxTokens: Math.min(input.sampling.maxTokens, request.maxTokens) },
      limits: { ...input.limits, maxReplyChars: request.maxChars },
    };
    const state = newRunState(run, 0);
    return this.withDeadline(run.limits, async (signal) => {
      try {
        await this.ask(run, state, { systemPrompt: run.systemPrompt, messages: run.messages, tools: [], toolChoice: 'none', signal }, 1);
        return state.reply.value === '' ? null : { text: state.reply.value, usage: state.usage };
      } catch (error) {
        this.modelFailure(state, run, error, signal, 1);
        return null;
      }
    });
  }

  private async loop(input: AgentRunInput, signal: AbortSignal): Promise<AgentRunResult> {
    const state = newRunState(input, 0);
    const tools = await this.gateway.listTools();
    const messages = [...input.messages];

    for (let iteration = 1; iteration <= input.limits.maxIterations; iteration++) {
      let completion: Completion;
      try {
        // A snapshot of the messages: the loop goes on appending, the adapter may still be reading.
        completion = await this.ask(input, state, { systemPrompt: input.systemPrompt, messages: [...messages], tools, signal }, iteration);
      } catch (error) {
        return this.modelFailure(state, input, error, signal, iteration);
      }
      if (completion.toolCalls.length === 0) {
        return this.finish(state, input, { status: 'completed', finishReason: answeredReason(completion), iterations: iteration });
      }

      const bulk = await this.bulkChange(completion.toolCalls, tools, input, state);
      if (bulk) {
        // Nothing of this batch runs before the person's yes.
        return this.finish(state, input, {
          say: bulk.prompt,
          status: 'completed',
          finishReason: 'confirmation_required',
          iterations: iteration,
          confirmation: bulk,
        });
      }
      messages.push({ role: 'assistant', content: completion.text, toolCalls: completion.toolCalls });
      let overBudget = false;
      for (const call of completion.toolCalls) {
        // Shown as it would be recorded; made so only for an observer (parsing costs on every call).
        if (input.observer?.toolCall) {
          const recorded = await recordedCall(call, input.limits.maxToolArgumentBytes);
          input.observer.toolCall({ tool: recorded.name, arguments: recorded.arguments });
        }
        overBudget ||= state.toolCalls >= input.limits.maxToolCalls;
        const outcome = await this.handle(call, tools, input, signal, state);
        state.records.push(outcome.record);
        this.logToolCall(input, outcome.record);
        input.observer?.toolResult?.(outcome.record);
        if (outcome.kind === 'confirm') {
          // Whatever else the model asked for in this batch waits for the person's answer.
          return this.finish(state, input, {
            say: outcome.dryRun.prompt,
            status: 'completed',
            finishReason: 'confirmation_required',
            iterations: iteration,
            confirmation: { tool: call.name, arguments: outcome.dryRun.arguments, prompt: outcome.dryRun.prompt },
          });
        }
        messages.push(outcome.message);
      }
      if (signal.aborted) return this.failed(state, input, 'TIMEOUT', null, iteration);
      if (overBudget) return this.answerAtLimit(input, state, messages, signal, 'max_tool_calls', iteration);
    }
    return this.answerAtLimit(input, state, messages, signal, 'max_iterations', input.limits.maxIterations);
  }

  /**
   * The model still wanted tools when the turn's model calls or tool calls ran out: one more
   * call, without tools and inside what is left of the deadline, words an answer from what
   * was gathered; the turn says it stopped at a limit.
   */
  private async answerAtLimit(
    input: AgentRunInput,
    state: RunState,
    messages: readonly AgentMessage[],
    signal: AbortSignal,
    reason: 'max_iterations' | 'max_tool_calls',
    iterations: number,
  ): Promise<AgentRunResult> {
    this.logger.warn({
      msg: 'agent turn reached a limit',
      decisionId: input.context.decisionId,
      reason,
      iterations,
      toolCalls: state.toolCalls,
    });
    const systemPrompt = `${input.systemPrompt}\n\n${LIMIT_NOTE}`;
    const before = state.reply.value.length;
    try {
      await this.ask(input, state, { systemPrompt, messages: [...messages], tools: [], toolChoice: 'none', signal }, iterations + 1);
    } catch (error) {
      return this.modelFailure(state, input, error, signal, iterations + 1);
    }
    return this.finish(state, input, {
      say: state.reply.value.length === before ? TREATMENTS.LIMIT_REACHED.userSees : undefined,
      status: 'max_iterations_reached',
      finishReason: reason,
      iterations: iterations + 1,
    });
  }

  /**
   * One model call, its words added to the reply as they come: streamed when someone
   * listens for them, else in one piece; either way the reply is the same.
   */
  private async ask(
    input: AgentRunInput,
    state: RunState,
    call: Pick<CompletionRequest, 'systemPrompt' | 'messages' | 'tools' | 'signal'> & { toolChoice?: 'none' },
    iteration: number,
  ): Promise<Completion> {
    const request: CompletionRequest = {
      systemPrompt: call.systemPrompt,
      messages: call.messages,
      tools: call.tools,
      signal: call.signal,
      options: { ...input.sampling, ...(call.toolChoice ? { toolChoice: call.toolChoice } : {}) },
    };
    const reservation = await this.reserve(input, request);
    let completion: Completion | undefined;
    try {
      state.reply.newParagraph();
      completion = input.observer?.text
        ? await this.model.stream(request, (piece) => state.reply.model(piece))
        : await this.model.complete(request);
    } finally {
      if (reservation) await input.budget!.settle(reservation, completion?.usage ?? { promptTokens: 0, completionTokens: 0 });
    }
    if (!input.observer?.text && completion.text) state.reply.model(completion.text);
    this.addUsage(state, completion.usage);
    this.logger.info({
      msg: 'model call',
      decisionId: input.context.decisionId,
      iteration,
      finishReason: completion.finishReason,
      toolCalls: completion.toolCalls.length,
      promptTokens: completion.usage.promptTokens,
      completionTokens: completion.usage.completionTokens,
    });
    return completion;
  }

  /**
   * A batch that would take the turn past BULK_CHANGES_MAX changes to existing things becomes
   * a question: its valid changing calls (within the turn's tool-call budget) are stored to
   * run on "yes", and recorded here as waiting for it. @returns null when the batch may run.
   */
  private async bulkChange(
    calls: readonly ToolCallRequest[],
    tools: readonly ToolDefinition[],
    input: AgentRunInput,
    state: RunState,
  ): Promise<NonNullable<AgentRunResult['confirmation']> | null> {
    const changing = calls.filter((call) => tools.some((tool) => tool.name === call.name && tool.changesExisting));
    if (state.changes + changing.length <= BULK_CHANGES_MAX) return null;
    const planned: PlannedCall[] = [];
    for (const call of changing.slice(0, Math.max(0, input.limits.maxToolCalls - state.toolCalls))) {
      const validation = validateToolCall(call, tools, input.limits.maxToolArgumentBytes, this.schemas);
      if (validation.ok) planned.push({ tool: validation.tool.name, arguments: validation.arguments });
    }
    if (state.changes + planned.length <= BULK_CHANGES_MAX) return null;
    const prompt = bulkChangePrompt(planned);
    for (const call of changing) {
      const recorded = await recordedCall(call, input.limits.maxToolArgumentBytes);
      const record: ToolCallRecord = {
        id: call.id,
        tool: recorded.name,
        arguments: recorded.arguments,
        success: false,
        error: { code: 'CONFIRMATION_REQUIRED', message: prompt },
        durationMs: 0,
      };
      input.observer?.toolCall?.({ tool: recorded.name, arguments: recorded.arguments });
      state.records.push(record);
      input.observer?.toolResult?.(record);
    }
    return { tool: BULK_CHANGE, arguments: bulkChangeArguments(planned), prompt };
  }

  /**
   * One call of the model's batch, always through the gateway, so that the tool server
   * validates, audits and counts it like any other: a call the agent cannot send as it is
   * (over the turn's tool calls, no such tool, arguments not JSON or too large) goes as a
   * refusal for the server to record. A destructive call goes first as a dry run, and
   * becomes the person's question.
   */
  private async handle(
    call: ToolCallRequest,
    tools: readonly ToolDefinition[],
    input: AgentRunInput,
    signal: AbortSignal,
    state: RunState,
  ): Promise<CallOutcome> {
    if (state.toolCalls >= input.limits.maxToolCalls) {
      return this.refuse(call, input, signal, state, { code: 'LIMIT_REACHED', message: TREATMENTS.LIMIT_REACHED.modelSees });
    }
    state.toolCalls++;
    const tool = tools.find((candidate) => candidate.name === call.name);
    const parsed = tool
      ? parseToolCall(call, input.limits.maxToolArgumentBytes)
      : validateToolArguments(tools, call.name, {}, this.schemas);
    if (!parsed.ok) {
      const { code, message, details } = parsed;
      return this.refuse(call, input, signal, state, { code, message, ...(details ? { details } : {}) });
    }
    const args = parsed.arguments;
    if (tool?.destructive) {
      const preview = await this.invoke(call, args, input, signal, state, { dryRun: true });
      if (preview.result.ok) {
        const dryRun = preview.result.data as DryRunResult;
        // Nothing ran: the record says so, and shows what would happen on "yes".
        const record: ToolCallRecord = {
          ...preview.record,
          success: false,
          result: undefined,
          error: { code: 'CONFIRMATION_REQUIRED', message: dryRun.prompt, details: dryRun.preview },
        };
        return { kind: 'confirm', record, dryRun };
      }
      return { kind: 'result', record: preview.record, message: preview.message };
    }
    const outcome = await this.invoke(call, args, input, signal, state);
    if (outcome.result.ok && tool?.changesExisting) state.changes++;
    return { kind: 'result', record: outcome.record, message: outcome.message };
  }

  /**
   * A call the agent will not send as the model wrote it. It still goes to the tool server,
   * which records and counts the refusal; what is recorded is the call made storable and
   * bounded (parsed when it is JSON, so secrets are masked by key), never the raw text.
   */
  private async refuse(
    call: ToolCallRequest,
    input: AgentRunInput,
    signal: AbortSignal,
    state: RunState,
    error: { readonly code: string; readonly message: string; readonly details?: unknown },
  ): Promise<CallOutcome> {
    const recorded = await recordedCall(call, input.limits.maxToolArgumentBytes);
    const outcome = await this.invoke({ ...call, name: recorded.name }, recorded.arguments, input, signal, state, {
      refusal: { ...error, arguments: recorded.arguments },
    });
    return { kind: 'result', record: outcome.record, message: outcome.message };
  }

  /**
   * One `execute_tool {tool}` span (GenAI semantic conventions) per call the gateway gets,
   * refusals included: the tool, the model's call id, the decision id and the outcome's code;
   * the arguments and the result only when the operator opted in to message content.
   */
  private invoke(
    call: Pick<ToolCallRequest, 'id' | 'name'>,
    args: ToolArguments | string,
    input: AgentRunInput,
    turnSignal: AbortSignal,
    state: RunState,
    extra: Partial<ToolCallContext> = {},
  ): Promise<{ result: ToolResult; record: ToolCallRecord; message: AgentMessage }> {
    // The name and id are the model's words: a name that is no tool's shape is not put in a span name.
    const toolName = TOOL_NAME_SHAPE.test(call.name) ? call.name : 'invalid_tool_name';
    const attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': toolName,
      'gen_ai.tool.call.id': call.id.slice(0, 128),
      'gen_ai.tool.type': 'function',
      'gen_ai.conversation.id': input.context.conversationId,
      'bridle.decision.id': input.context.decisionId,
      ...(this.tracer.capturesContent ? { 'gen_ai.tool.call.arguments': typeof args === 'string' ? args : JSON.stringify(args) } : {}),
    };
    return this.tracer.inSpan(`execute_tool ${toolName}`, { attributes }, async (span) => {
      const outcome = await this.invokeGateway(call, args, input, turnSignal, state, extra);
      if (!outcome.result.ok) span.fail(outcome.result.code);
      else if (this.tracer.capturesContent) span.set({ 'gen_ai.tool.call.result': JSON.stringify(outcome.result.data) });
      return outcome;
    });
  }

  private async invokeGateway(
    call: Pick<ToolCallRequest, 'id' | 'name'>,
    args: ToolArguments | string,
    input: AgentRunInput,
    turnSignal: AbortSignal,
    state: RunState,
    extra: Partial<ToolCallContext>,
  ): Promise<{ result: ToolResult; record: ToolCallRecord; message: AgentMessage }> {
    const started = this.clock.now().getTime();
    // Not AbortSignal.any(): Node keeps a composite signal with listeners alive until it
    // fires, and the MCP client never removes its listener, so every call leaked.
    const perCall = new AbortController();
    const abort = () => perCall.abort();
    const timer = setTimeout(abort, input.limits.toolTimeoutMs);
    turnSignal.addEventListener('abort', abort, { once: true });
    let result: ToolResult;
    try {
      result = await this.gateway.invoke(call.name, typeof args === 'string' ? {} : args, { ...input.context, ...extra }, perCall.signal);
    } catch {
      result = perCall.signal.aborted
        ? { ok: false, code: 'TIMEOUT', message: TREATMENTS.TIMEOUT.modelSees }
        : { ok: false, code: 'UNAVAILABLE', message: TREATMENTS.UNKNOWN.modelSees };
    } finally {
      clearTimeout(timer);
      turnSignal.removeEventListener('abort', abort);
    }
    const durationMs = this.clock.now().getTime() - started;
    state.lastToolErrorCode = result.ok ? null : result.code;
    const shown = result.ok
      ? extra.dryRun
        ? (result.data as DryRunResult).preview
        : result.data
      : { code: result.code, message: result.message, ...(result.details === undefined ? {} : { details: result.details }) };
    const record: ToolCallRecord = result.ok
      ? { id: call.id, tool: call.name, arguments: args, success: true, result: shown, durationMs }
      : { id: call.id, tool: call.name, arguments: args, success: false, error: shown as ToolCallRecord['error'], durationMs };
    const message: AgentMessage = {
      role: 'tool',
      toolCallId: call.id,
      name: call.name,
      content: JSON.stringify(shown),
      isError: !result.ok,
    };
    return { result, record, message };
  }

  /**
   * Holds the most this call can use against the person's budget.
   * @throws TokenBudgetSpentError when the day's budget cannot cover it; the model is not called.
   */
  private async reserve(input: AgentRunInput, request: CompletionRequest): Promise<TokenReservation | null> {
    const { budget } = input;
    if (!budget?.enabled) return null;
    const most = { promptTokens: promptTokensAtMost(request), completionTokens: request.options?.maxTokens ?? input.sampling.maxTokens };
    const reservation = await budget.reserve(input.context.userId, most, this.clock.now());
    if (!reservation) throw new TokenBudgetSpentError();
    return reservation;
  }

  private modelFailure(state: RunState, input: AgentRunInput, error: unknown, signal: AbortSignal, iteration: number): AgentRunResult {
    const failureClass = signal.aborted ? 'TIMEOUT' : classifyModelFailure(error);
    const requestId = error instanceof LanguageModelError ? (error.requestId ?? null) : null;
    const line = {
      msg: 'model call failed',
      decisionId: input.context.decisionId,
      iteration,
      failureClass,
      providerRequestId: requestId,
      provider: this.model.provider,
      err: error,
    };
    // A provider that fails or refuses our request needs someone; limits, budgets and deadlines pass.
    if (failureClass === 'BUDGET_SPENT') this.logger.info(line);
    else if (TREATMENTS[failureClass].retryable && failureClass !== 'PROVIDER_UNAVAILABLE') this.logger.warn(line);
    else this.logger.error(line);
    return this.failed(state, input, failureClass, requestId, iteration);
  }

  private failed(state: RunState, input: AgentRunInput, failureClass: FailureClass, providerRequestId: string | null, iterations: number) {
    return this.finish(state, input, {
      say: failureSentence(failureClass, input.supportContact ?? null),
      status: 'error',
      finishReason: failureClass === 'TIMEOUT' ? 'timeout' : failureClass === 'BUDGET_SPENT' ? 'budget_spent' : 'error',
      iterations,
      failure: { class: failureClass, providerRequestId },
    });
  }

  /** Ends the turn: the server's sentence (if any) closes the reply, which is never empty. */
  private finish(
    state: RunState,
    input: AgentRunInput,
    end: {
      say?: string;
      status: TurnStatus;
      finishReason: TurnFinishReason;
      iterations: number;
      failure?: AgentRunResult['failure'];
      confirmation?: AgentRunResult['confirmation'];
    },
  ): AgentRunResult {
    const { reply } = state;
    if (end.say !== undefined) reply.say(end.say);
    if (reply.value === '') reply.say(failureSentence('UNKNOWN', input.supportContact ?? null));
    const warning =
      end.status === 'max_iterations_reached'
        ? WARNINGS.LIMIT_REACHED
        : reply.wasCut || end.finishReason === 'length'
          ? WARNINGS.SHORTENED
          : null;
    return {
      text: reply.value,
      modelWords: reply.modelWords,
      serverSentences: reply.serverSentences,
      status: end.status,
      finishReason: end.finishReason,
      warning,
      iterations: end.iterations,
      toolCalls: state.records,
      usage: state.usage,
      failure: end.failure ?? null,
      confirmation: end.confirmation ?? null,
      decisionType: decisionOf({
        confirmationRequested: end.confirmation != null,
        toolsRequested: state.records.length,
        toolsSucceeded: state.records.filter((record) => record.success).length,
        lastToolErrorCode: state.lastToolErrorCode,
        finalText: reply.value,
      }),
    };
  }

  /** One line per tool call; a call that broke (not one the tool refused) needs someone. */
  private logToolCall(input: AgentRunInput, record: ToolCallRecord): void {
    const line = {
      msg: 'tool call',
      decisionId: input.context.decisionId,
      tool: record.tool,
      success: record.success,
      code: record.error?.code,
      durationMs: record.durationMs,
    };
    if (record.error && BROKEN_TOOL_CALLS.has(record.error.code)) this.logger.error(line);
    else this.logger.info(line);
  }

  private addUsage(state: RunState, usage: TokenUsage): void {
    state.usage = {
      promptTokens: state.usage.promptTokens + usage.promptTokens,
      completionTokens: state.usage.completionTokens + usage.completionTokens,
    };
  }

  private async withDeadline<T>(limits: AgentLimits, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), limits.turnTimeoutMs);
    try {
      return await run(controller.signal);
    } finally {
      clearTimeout(timer);
    }
  }
}

function newRunState(input: AgentRunInput, toolCalls: number): RunState {
  return {
    reply: new Reply(input.limits.maxReplyChars, input.observer?.text?.bind(input.observer)),
    records: [],
    usage: { promptTokens: 0, completionTokens: 0 },
    toolCalls,
    changes: 0,
    lastToolErrorCode: null,
  };
}

/** A model's call as it may be shown and recorded: see recordedToolName and recordedArguments. */
async function recordedCall(call: ToolCallRequest, maxArgumentBytes: number): Promise<{ name: string; arguments: ToolArguments | string }> {
  return { name: recordedToolName(call.name), arguments: await recordedArguments(call.arguments, maxArgumentBytes) };
}
