import { toolVocabulary } from '../../../domain/agent/clarification';
import { TREATMENTS } from '../../../domain/agent/failures';
import type { AgentMessage } from '../../../domain/agent/tools';
import type { ToolCallRecord } from '../../../domain/chat/conversation';
import type { Logger } from '../../shared/ports/logger.port';
import type { Completion } from '../ports/language-model.port';
import type { SchemaValidator } from '../ports/schema-validator.port';
import type { ToolGateway } from '../ports/tool-gateway.port';
import { type AgentRunInput, newRunState, recordedCall, type RunState } from './agent-run';
import { bulkChange } from './bulk-change';
import { answeredReason, type ModelCall } from './model-call';
import type { ModelToolCall } from './model-tool-call';
import type { TurnEnd } from './turn-end';

/** Told to the model for the call that words the answer when a limit is reached. */
const LIMIT_NOTE =
  'You have used every step allowed for this request, so no more tools can run. Answer now from the results above: ' +
  'say what was done and what is left, briefly.';

/** Tool errors that mean the call broke (the gateway failed or timed out), not that the tool said no. */
const BROKEN_TOOL_CALLS = new Set(['UNAVAILABLE', 'TIMEOUT']);

/**
 * A turn's loop: ask the model, run the calls it asks for (ModelToolCall), feed the results
 * back, until it answers without tools, the person must be asked, or a limit is reached.
 */
export class ToolLoop {
  constructor(
    private readonly gateway: ToolGateway,
    private readonly modelCall: ModelCall,
    private readonly toolCall: ModelToolCall,
    private readonly schemas: SchemaValidator,
    private readonly logger: Logger,
  ) {}

  async run(input: AgentRunInput, signal: AbortSignal): Promise<{ state: RunState; end: TurnEnd }> {
    const state = newRunState(input, 0);
    return { state, end: await this.loop(input, state, signal) };
  }

  private async loop(input: AgentRunInput, state: RunState, signal: AbortSignal): Promise<TurnEnd> {
    const tools = await this.gateway.listTools();
    state.vocabulary = toolVocabulary(tools);
    const messages = [...input.messages];

    for (let iteration = 1; iteration <= input.limits.maxIterations; iteration++) {
      let completion: Completion;
      try {
        // A snapshot of the messages: the loop goes on appending, the adapter may still be reading.
        completion = await this.modelCall.ask(
          input,
          state,
          { systemPrompt: input.systemPrompt, messages: [...messages], tools, signal },
          iteration,
        );
      } catch (error) {
        return this.modelCall.failure(input, error, signal, iteration);
      }
      if (completion.toolCalls.length === 0) {
        return { kind: 'answered', finishReason: answeredReason(completion), iterations: iteration };
      }

      const bulk = await bulkChange(completion.toolCalls, tools, input, state, this.schemas);
      // Nothing of this batch runs before the person's yes.
      if (bulk) return { kind: 'asks', say: bulk.prompt, confirmation: bulk, iterations: iteration };
      messages.push({ role: 'assistant', content: completion.text, toolCalls: completion.toolCalls });
      let overBudget = false;
      for (const call of completion.toolCalls) {
        // Shown as it would be recorded; made so only for an observer (parsing costs on every call).
        if (input.observer?.toolCall) {
          const recorded = await recordedCall(call, input.limits.maxToolArgumentBytes);
          input.observer.toolCall({ tool: recorded.name, arguments: recorded.arguments });
        }
        overBudget ||= state.toolCalls >= input.limits.maxToolCalls;
        const outcome = await this.toolCall.handle(call, tools, input, signal, state);
        state.records.push(outcome.record);
        this.logToolCall(input, outcome.record);
        input.observer?.toolResult?.(outcome.record);
        if (outcome.kind === 'confirm') {
          // Whatever else the model asked for in this batch waits for the person's answer.
          const { prompt, arguments: args } = outcome.dryRun;
          return { kind: 'asks', say: prompt, confirmation: { tool: call.name, arguments: args, prompt }, iterations: iteration };
        }
        messages.push(outcome.message);
      }
      if (signal.aborted) return { kind: 'failed', failure: { class: 'TIMEOUT', providerRequestId: null }, iterations: iteration };
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
  ): Promise<TurnEnd> {
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
      await this.modelCall.ask(
        input,
        state,
        { systemPrompt, messages: [...messages], tools: [], toolChoice: 'none', signal },
        iterations + 1,
      );
    } catch (error) {
      return this.modelCall.failure(input, error, signal, iterations + 1);
    }
    return {
      kind: 'at-limit',
      reason,
      iterations: iterations + 1,
      say: state.reply.value.length === before ? TREATMENTS.LIMIT_REACHED.userSees : undefined,
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
}
