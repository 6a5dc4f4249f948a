import {
  BULK_CHANGE,
  bulkChangeCalls,
  CONFIRMATION_STALE,
  type PendingConfirmation,
  type PlannedCall,
} from '../../../domain/agent/confirmation';
import type { AgentMessage, ToolCallRequest } from '../../../domain/agent/tools';
import type { DryRunResult } from '../ports/toolbox.port';
import { type AgentRunInput, newRunState, type RunState } from './agent-run';
import { answeredReason, type ModelCall } from './model-call';
import type { ToolInvocation } from './tool-invocation';
import type { TurnEnd } from './turn-end';

/**
 * Runs what the person confirmed (exactly the stored call, or each call of a bulk change),
 * then lets the model word the outcome without tools. If the server finds the person's yes
 * no longer covers what is there, nothing ran: its own words are the answer, with any new
 * question it asks.
 */
export class ConfirmedRun {
  constructor(
    private readonly invocation: ToolInvocation,
    private readonly modelCall: ModelCall,
  ) {}

  async run(input: AgentRunInput, action: PendingConfirmation, signal: AbortSignal): Promise<{ state: RunState; end: TurnEnd }> {
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
      const mode = bulk ? ({ kind: 'run' } as const) : ({ kind: 'confirmed' } as const);
      const outcome = await this.invocation.invoke(call, planned[i].arguments, input, signal, state, mode);
      state.records.push(outcome.record);
      // What the person confirmed changes data, whichever tool it is.
      if (outcome.result.ok) state.changesMade++;
      input.observer?.toolResult?.(outcome.record);
      if (!bulk && !outcome.result.ok && outcome.result.code === CONFIRMATION_STALE) {
        const askAgain = (outcome.result.details as { askAgain?: DryRunResult | null } | undefined)?.askAgain;
        const say = outcome.result.message;
        const end: TurnEnd = askAgain
          ? {
              kind: 'asks',
              say,
              confirmation: { tool: action.tool, arguments: askAgain.arguments, prompt: askAgain.prompt },
              iterations: 0,
            }
          : { kind: 'answered', finishReason: 'stop', say, iterations: 0 };
        return { state, end };
      }
      results.push(outcome.message);
    }
    const messages: AgentMessage[] = [...input.messages, { role: 'assistant', content: null, toolCalls: calls }, ...results];
    try {
      const completion = await this.modelCall.ask(
        input,
        state,
        { systemPrompt: input.systemPrompt, messages, tools: [], toolChoice: 'none', signal },
        1,
      );
      return { state, end: { kind: 'answered', finishReason: answeredReason(completion), iterations: 1 } };
    } catch (error) {
      return { state, end: this.modelCall.failure(input, error, signal, 1) };
    }
  }
}
