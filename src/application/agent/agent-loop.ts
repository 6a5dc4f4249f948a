import { Injectable } from '@nestjs/common';
import {
  BULK_CHANGE,
  BULK_CHANGES_MAX,
  bulkChangeArguments,
  bulkChangeCalls,
  bulkChangePrompt,
  CONFIRMATION_STALE,
  type PendingAction,
  type PlannedCall,
} from '../../domain/agent/confirmation';
import { decisionOf, type DecisionType, type TurnStatus } from '../../domain/agent/decision';
import { classifyModelFailure, failureOfToolError, type FailureClass, TREATMENTS } from '../../domain/agent/failures';
import type { AgentLimits } from '../../domain/agent/limits';
import { LanguageModelError } from '../../domain/agent/language-model-errors';
import { boundedAnswer, recordedArguments, recordedToolName } from '../../domain/agent/model-output';
import { type SecurityEvent, type ToolArguments, validateToolCall } from '../../domain/agent/tool-call-validation';
import type { AgentMessage, ToolCallRequest, ToolDefinition } from '../../domain/agent/tools';
import type { ToolCallRecord } from '../../domain/chat/conversation';
import { Clock } from '../shared/ports/clock.port';
import { AuditLog } from './ports/audit-log.port';
import { LanguageModel, type TokenUsage } from './ports/language-model.port';
import { type ToolCallContext, ToolGateway, type ToolResult } from './ports/tool-gateway.port';
import type { DryRunResult } from './ports/toolbox.port';

/** Told about a turn's tool calls as they happen (e.g. to stream them to a client). */
export interface TurnObserver {
  toolCall?(call: { readonly tool: string; readonly arguments: ToolArguments | string }): void;
  toolResult?(record: ToolCallRecord): void;
}

export interface AgentRunInput {
  readonly systemPrompt: string;
  /** The conversation window, ending with the message to answer. */
  readonly messages: readonly AgentMessage[];
  readonly context: ToolCallContext & { readonly decisionId: string };
  readonly limits: AgentLimits;
  readonly observer?: TurnObserver;
}

export interface AgentRunResult {
  readonly text: string;
  readonly status: TurnStatus;
  readonly decisionType: DecisionType;
  readonly iterations: number;
  readonly toolCalls: readonly ToolCallRecord[];
  readonly usage: TokenUsage;
  readonly failure: { readonly class: FailureClass; readonly providerRequestId: string | null } | null;
  /** A destructive call the model asked for: stored, and put to the person as a question. */
  readonly confirmation: { readonly tool: string; readonly arguments: ToolArguments; readonly prompt: string } | null;
}

type CallOutcome =
  | { readonly kind: 'result'; readonly record: ToolCallRecord; readonly message: AgentMessage }
  | { readonly kind: 'confirm'; readonly record: ToolCallRecord; readonly dryRun: DryRunResult };

/** Mutable bookkeeping of one run; never outlives it. */
interface RunState {
  readonly maxAnswerBytes: number;
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
  constructor(
    private readonly model: LanguageModel,
    private readonly gateway: ToolGateway,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  get provider(): { readonly provider: string; readonly model: string } {
    return { provider: this.model.provider, model: this.model.model };
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
  async runConfirmed(input: AgentRunInput, action: PendingAction): Promise<AgentRunResult> {
    return this.withDeadline(input.limits, async (signal) => {
      const bulk = action.tool === BULK_CHANGE ? (bulkChangeCalls(action.arguments) ?? []) : null;
      const planned: PlannedCall[] = bulk ?? [{ tool: action.tool, arguments: action.arguments }];
      const state = newRunState(input.limits, planned.length);
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
          return this.finish(state, {
            text: outcome.result.message,
            status: 'completed',
            iterations: 0,
            confirmation: askAgain ? { tool: action.tool, arguments: askAgain.arguments, prompt: askAgain.prompt } : undefined,
          });
        }
        results.push(outcome.message);
      }
      const messages: AgentMessage[] = [...input.messages, { role: 'assistant', content: null, toolCalls: calls }, ...results];
      try {
        const completion = await this.model.complete({
          systemPrompt: input.systemPrompt,
          messages,
          tools: [],
          options: { toolChoice: 'none', temperature: 0.2, maxTokens: 512 },
          signal,
        });
        this.addUsage(state, completion.usage);
        return this.finish(state, { text: completion.text ?? '', status: 'completed', iterations: 1 });
      } catch (error) {
        return this.modelFailure(state, error, signal, 1);
      }
    });
  }

  private async loop(input: AgentRunInput, signal: AbortSignal): Promise<AgentRunResult> {
    const state = newRunState(input.limits, 0);
    const tools = await this.gateway.listTools();
    const messages = [...input.messages];

    for (let iteration = 1; iteration <= input.limits.maxIterations; iteration++) {
      let completion;
      try {
        completion = await this.model.complete({
          systemPrompt: input.systemPrompt,
          // A snapshot: the loop goes on appending, the adapter may still be reading.
          messages: [...messages],
          tools,
          options: { temperature: 0.2, maxTokens: 1024 },
          signal,
        });
      } catch (error) {
        return this.modelFailure(state, error, signal, iteration);
      }
      this.addUsage(state, completion.usage);
      if (completion.toolCalls.length === 0) {
        return this.finish(state, { text: completion.text ?? '', status: 'completed', iterations: iteration });
      }

      const bulk = await this.bulkChange(completion.toolCalls, tools, input, state);
      if (bulk) {
        // Nothing of this batch runs before the person's yes.
        return this.finish(state, { text: bulk.prompt, status: 'completed', iterations: iteration, confirmation: bulk });
      }
      messages.push({ role: 'assistant', content: completion.text, toolCalls: completion.toolCalls });
      for (const call of completion.toolCalls) {
        // Shown as it would be recorded; made so only for an observer (parsing costs on every call).
        if (input.observer?.toolCall) {
          const recorded = await recordedCall(call, input.limits.maxToolArgumentBytes);
          input.observer.toolCall({ tool: recorded.name, arguments: recorded.arguments });
        }
        const outcome = await this.handle(call, tools, input, signal, state);
        state.records.push(outcome.record);
        input.observer?.toolResult?.(outcome.record);
        if (outcome.kind === 'confirm') {
          // Whatever else the model asked for in this batch waits for the person's answer.
          return this.finish(state, {
            text: outcome.dryRun.prompt,
            status: 'completed',
            iterations: iteration,
            confirmation: { tool: call.name, arguments: outcome.dryRun.arguments, prompt: outcome.dryRun.prompt },
          });
        }
        messages.push(outcome.message);
      }
      if (signal.aborted) return this.failed(state, 'TIMEOUT', null, iteration);
    }
    return this.finish(state, {
      text: TREATMENTS.LIMIT_REACHED.userSees,
      status: 'max_iterations_reached',
      iterations: input.limits.maxIterations,
      failure: { class: 'LIMIT_REACHED', providerRequestId: null },
    });
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
      const validation = validateToolCall(call, tools, input.limits.maxToolArgumentBytes);
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

  private async handle(
    call: ToolCallRequest,
    tools: readonly ToolDefinition[],
    input: AgentRunInput,
    signal: AbortSignal,
    state: RunState,
  ): Promise<CallOutcome> {
    if (state.toolCalls >= input.limits.maxToolCalls) {
      return this.refuse(call, input, state, 'LIMIT_REACHED', TREATMENTS.LIMIT_REACHED.modelSees, []);
    }
    state.toolCalls++;
    const validation = validateToolCall(call, tools, input.limits.maxToolArgumentBytes);
    if (!validation.ok) {
      return this.refuse(call, input, state, validation.code, validation.message, validation.securityEvents);
    }
    const securityEvents = validation.securityEvents;
    if (validation.tool.changesExisting) state.changes++;
    if (validation.tool.destructive) {
      const preview = await this.invoke(call, validation.arguments, input, signal, state, { dryRun: true, securityEvents });
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
    const outcome = await this.invoke(call, validation.arguments, input, signal, state, { securityEvents });
    return { kind: 'result', record: outcome.record, message: outcome.message };
  }

  /**
   * A call refused before it reached the gateway: audited here, explained to the model. What
   * is recorded is the call made storable and bounded (parsed when it is JSON, so secrets are
   * masked by key); the raw text never is.
   */
  private async refuse(
    call: ToolCallRequest,
    input: AgentRunInput,
    state: RunState,
    code: string,
    message: string,
    securityEvents: readonly SecurityEvent[],
  ): Promise<CallOutcome> {
    const { context } = input;
    const recorded = await recordedCall(call, input.limits.maxToolArgumentBytes);
    await this.audit.record(
      {
        source: context.source,
        actorId: context.userId,
        conversationId: context.conversationId,
        decisionId: context.decisionId,
        tool: recorded.name,
        arguments: recorded.arguments,
        securityEvents,
      },
      { status: TREATMENTS[failureOfToolError(code)].auditStatus, errorCode: code, durationMs: 0 },
    );
    state.lastToolErrorCode = code;
    const error = { code, message };
    return {
      kind: 'result',
      record: { id: call.id, tool: recorded.name, arguments: recorded.arguments, success: false, error, durationMs: 0 },
      message: { role: 'tool', toolCallId: call.id, name: recorded.name, content: JSON.stringify(error), isError: true },
    };
  }

  private async invoke(
    call: ToolCallRequest,
    args: ToolArguments,
    input: AgentRunInput,
    turnSignal: AbortSignal,
    state: RunState,
    extra: Partial<ToolCallContext> = {},
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
      result = await this.gateway.invoke(call.name, args, { ...input.context, ...extra }, perCall.signal);
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

  private modelFailure(state: RunState, error: unknown, signal: AbortSignal, iteration: number): AgentRunResult {
    const failureClass = signal.aborted ? 'TIMEOUT' : classifyModelFailure(error);
    const requestId = error instanceof LanguageModelError ? (error.requestId ?? null) : null;
    return this.failed(state, failureClass, requestId, iteration);
  }

  private failed(state: RunState, failureClass: FailureClass, providerRequestId: string | null, iterations: number) {
    return this.finish(state, {
      text: TREATMENTS[failureClass].userSees,
      status: 'error',
      iterations,
      failure: { class: failureClass, providerRequestId },
    });
  }

  private finish(
    state: RunState,
    end: {
      text: string;
      status: TurnStatus;
      iterations: number;
      failure?: AgentRunResult['failure'];
      confirmation?: AgentRunResult['confirmation'];
    },
  ): AgentRunResult {
    const text = boundedAnswer(end.text.trim(), state.maxAnswerBytes).text || TREATMENTS.UNKNOWN.userSees;
    return {
      text,
      status: end.status,
      iterations: end.iterations,
      toolCalls: state.records,
      usage: state.usage,
      failure: end.failure ?? null,
      confirmation: end.confirmation ?? null,
      decisionType: decisionOf({
        confirmationRequested: end.confirmation != null,
        toolsSucceeded: state.records.filter((record) => record.success).length,
        lastToolErrorCode: state.lastToolErrorCode,
        finalText: text,
      }),
    };
  }

  private addUsage(state: RunState, usage: TokenUsage): void {
    state.usage = {
      promptTokens: state.usage.promptTokens + usage.promptTokens,
      completionTokens: state.usage.completionTokens + usage.completionTokens,
    };
  }

  private async withDeadline(limits: AgentLimits, run: (signal: AbortSignal) => Promise<AgentRunResult>) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), limits.turnTimeoutMs);
    try {
      return await run(controller.signal);
    } finally {
      clearTimeout(timer);
    }
  }
}

function newRunState(limits: AgentLimits, toolCalls: number): RunState {
  return {
    maxAnswerBytes: limits.maxAnswerBytes,
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
