import type { DecisionType, TurnFinishReason, TurnStatus } from './decision';
import { type FailureClass, failureOfToolError, isBudgetSpent } from './failures';
import { TOOL_INTENTS, type ToolIntent } from './tools';

/**
 * What the person wanted in a chat turn, as its tool calls show it: one kind of change
 * (CREATE, UPDATE, COMPLETE, DELETE), a look at the list (READ), several changes put to the
 * person as one (BULK) or changes of more than one kind, or nothing a tool does (NONE).
 * PENDING until the turn ends; UNKNOWN for a turn cut off before it could say.
 */
export const INTENT_TYPES = [...TOOL_INTENTS, 'NONE', 'PENDING', 'UNKNOWN'] as const;
export type IntentType = (typeof INTENT_TYPES)[number];

/**
 * How a chat turn ended for the person: what they asked was done (SUCCEEDED), part of it
 * (PARTIAL), they were asked something first (ASKED), a rule declined it (REFUSED: the day's
 * budget, a content filter, a call not allowed, a "yes" to a question already handled), the
 * question it answered had expired unanswered (EXPIRED: nobody said no, the time ran out), or
 * it failed (FAILED). PENDING until the turn ends; INTERRUPTED when it was cut off and answered for.
 */
export const OUTCOME_CATEGORIES = ['SUCCEEDED', 'PARTIAL', 'ASKED', 'REFUSED', 'EXPIRED', 'FAILED', 'PENDING', 'INTERRUPTED'] as const;
export type OutcomeCategory = (typeof OUTCOME_CATEGORIES)[number];

/** One tool call of a turn, as its outcome is judged. */
export interface JudgedCall {
  readonly tool: string;
  /** What the tool serves; null for a name that is no tool of the assistant's. */
  readonly intent: ToolIntent | null;
  readonly success: boolean;
  /** The tool's error code when it failed. */
  readonly errorCode: string | null;
}

const CHANGES: ReadonlySet<ToolIntent> = new Set(['CREATE', 'UPDATE', 'COMPLETE', 'DELETE', 'BULK']);

/**
 * The turn's intent from the intents of its calls (and of what it asked or ran on the
 * person's yes), failed ones included: it is what was wanted, not what happened. A read made
 * on the way to a change does not count; a bulk change, or changes of two kinds, is BULK.
 */
export function intentOf(intents: readonly (ToolIntent | null)[]): IntentType {
  const known = intents.filter((intent): intent is ToolIntent => intent !== null);
  const changes = new Set(known.filter((intent) => CHANGES.has(intent)));
  if (changes.has('BULK') || changes.size > 1) return 'BULK';
  if (changes.size === 1) return [...changes][0];
  return known.includes('READ') ? 'READ' : 'NONE';
}

/**
 * How the turn ended for the person. A failure of the model is FAILED (REFUSED when it was
 * the day's budget or a content filter); a question to the person is ASKED; a turn stopped
 * at a limit is PARTIAL. Otherwise its calls decide: those that changed or would change
 * something (its reads, when it changed nothing), each tool by its last call, so that a call
 * the model corrected counts as corrected: all succeeded, SUCCEEDED (so does a turn without
 * calls); none, FAILED, or REFUSED when every one was refused as not allowed; some, PARTIAL.
 */
export function outcomeOf(turn: {
  readonly status: TurnStatus;
  readonly finishReason: TurnFinishReason;
  readonly decisionType: DecisionType;
  readonly failure: FailureClass | null;
  readonly calls: readonly JudgedCall[];
}): OutcomeCategory {
  if (turn.failure !== null) return isBudgetSpent(turn.failure) || turn.failure === 'CONTENT_FILTERED' ? 'REFUSED' : 'FAILED';
  if (turn.finishReason === 'content_filter') return 'REFUSED';
  if (turn.decisionType === 'ASK_CLARIFICATION' || turn.decisionType === 'REQUEST_CONFIRMATION') return 'ASKED';
  if (turn.status === 'max_iterations_reached') return 'PARTIAL';
  const changing = turn.calls.filter((call) => call.intent !== null && CHANGES.has(call.intent));
  const judged = [...new Map((changing.length > 0 ? changing : turn.calls).map((call) => [call.tool, call])).values()];
  const failed = judged.filter((call) => !call.success);
  if (failed.length === 0) return 'SUCCEEDED';
  if (failed.length < judged.length) return 'PARTIAL';
  return failed.every((call) => failureOfToolError(call.errorCode ?? '') === 'NOT_AUTHORIZED') ? 'REFUSED' : 'FAILED';
}
