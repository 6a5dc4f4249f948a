import { itemsIn, itemsNamed } from '../../../domain/agent/clarification';
import { decisionOf, type TurnFacts, type TurnFinishReason } from '../../../domain/agent/decision';
import { failureSentence, isBudgetSpent, WARNINGS } from '../../../domain/agent/failures';
import type { AgentRunInput, AgentRunResult, RunState, TurnConfirmation } from './agent-run';

/**
 * How a turn ends, whichever part ends it. Every end but `answered` adds the server's own
 * sentence (`say`) after the model's words; a failure's sentence is chosen by its class.
 */
export type TurnEnd =
  /** The model answered without asking for tools (or a confirmed call found nothing left to ask). */
  | {
      readonly kind: 'answered';
      readonly finishReason: Extract<TurnFinishReason, 'stop' | 'length' | 'content_filter'>;
      readonly iterations: number;
      readonly say?: string;
    }
  /** Nothing more runs before the person answers `confirmation`. */
  | { readonly kind: 'asks'; readonly say: string; readonly confirmation: TurnConfirmation; readonly iterations: number }
  /** The model calls or tool calls ran out; one more call without tools worded the answer. */
  | {
      readonly kind: 'at-limit';
      readonly reason: Extract<TurnFinishReason, 'max_iterations' | 'max_tool_calls'>;
      readonly iterations: number;
      readonly say?: string;
    }
  | { readonly kind: 'failed'; readonly failure: NonNullable<AgentRunResult['failure']>; readonly iterations: number };

/** Ends the turn: the server's sentence (if any) closes the reply, which is never empty. */
export function endTurn(state: RunState, input: AgentRunInput, end: TurnEnd): AgentRunResult {
  const { reply } = state;
  const shape = shapeOf(end, input);
  if (shape.say !== undefined) reply.say(shape.say);
  const offered = end.kind === 'asks' || state.changesMade > 0 ? undefined : candidatesOffered(state);
  if (offered && itemsNamed(reply.value, offered.candidates).length < offered.candidates.length) reply.say(offered.sentence);
  if (reply.value === '') reply.say(failureSentence('UNKNOWN', input.supportContact ?? null));
  const warning =
    shape.status === 'max_iterations_reached'
      ? WARNINGS.LIMIT_REACHED
      : reply.wasCut || shape.finishReason === 'length'
        ? WARNINGS.SHORTENED
        : null;
  const confirmation = end.kind === 'asks' ? end.confirmation : null;
  const facts: TurnFacts = {
    confirmationRequested: confirmation !== null,
    toolsRequested: state.records.length,
    changesMade: state.changesMade,
    lastToolErrorCode: state.lastToolErrorCode,
    // What the model read: the tool results of the conversation window and of this turn.
    seen: itemsIn([
      ...input.messages.flatMap((message) => (message.role === 'tool' ? [message.content] : [])),
      ...state.records.map((record) => (record.success ? record.result : record.error?.details)),
    ]),
    vocabulary: state.vocabulary,
    clarifyingErrorCodes: input.words.clarifyingErrorCodes,
  };
  const decision = decisionOf(facts, reply.value);
  return {
    text: reply.value,
    modelWords: reply.modelWords,
    serverSentences: reply.serverSentences,
    status: shape.status,
    finishReason: shape.finishReason,
    warning,
    iterations: end.iterations,
    toolCalls: state.records,
    usage: state.usage,
    cost: state.cost,
    failure: end.kind === 'failed' ? end.failure : null,
    confirmation,
    decisionType: decision.type,
    clarificationQuestion: decision.clarificationQuestion,
    facts,
  };
}

/**
 * The candidates the turn's last call was refused with (a tool error whose details offer
 * `candidates`, as AMBIGUOUS_TASK does), and the tool's sentence that names them: the person
 * must read them, whatever the model made of them.
 */
function candidatesOffered(state: RunState): { candidates: ReturnType<typeof itemsIn>; sentence: string } | undefined {
  const last = state.records.at(-1);
  const details = last?.error?.details;
  if (!last?.error || typeof details !== 'object' || details === null || !('candidates' in details)) return undefined;
  const candidates = itemsIn([details.candidates]);
  return candidates.length > 0 ? { candidates, sentence: last.error.message } : undefined;
}

function shapeOf(end: TurnEnd, input: AgentRunInput): Pick<AgentRunResult, 'status' | 'finishReason'> & { say?: string } {
  switch (end.kind) {
    case 'answered':
      return { status: 'completed', finishReason: end.finishReason, say: end.say };
    case 'asks':
      return { status: 'completed', finishReason: 'confirmation_required', say: end.say };
    case 'at-limit':
      return { status: 'max_iterations_reached', finishReason: end.reason, say: end.say };
    case 'failed': {
      const failureClass = end.failure.class;
      return {
        status: 'error',
        finishReason: failureClass === 'TIMEOUT' ? 'timeout' : isBudgetSpent(failureClass) ? 'budget_spent' : 'error',
        say: failureSentence(failureClass, input.supportContact ?? null),
      };
    }
  }
}
