export const DECISION_TYPES = ['RESPOND_ONLY', 'INVOKE_TOOL', 'ASK_CLARIFICATION', 'REQUEST_CONFIRMATION'] as const;
export type DecisionType = (typeof DECISION_TYPES)[number];

export const TURN_STATUSES = ['completed', 'max_iterations_reached', 'error'] as const;
export type TurnStatus = (typeof TURN_STATUSES)[number];

/**
 * Why a turn ended: the model answered (`stop`), its answer ran into the token limit
 * (`length`) or a content filter, the person was asked to confirm, a limit of model calls
 * or tool calls was reached (an answer was still worded from what was gathered), the
 * deadline passed, the person's daily token budget could not cover another model call,
 * or the model failed.
 */
export const FINISH_REASONS = [
  'stop',
  'length',
  'content_filter',
  'confirmation_required',
  'max_iterations',
  'max_tool_calls',
  'timeout',
  'budget_spent',
  'error',
] as const;
export type TurnFinishReason = (typeof FINISH_REASONS)[number];

/** Tool error codes after which the right answer is a question to the person. */
const CLARIFYING_ERRORS = new Set(['AMBIGUOUS_TASK', 'MISSING_TARGET']);

/**
 * What kind of decision a finished turn was. A pending confirmation wins; a turn that
 * asked for tools invoked them (whether they succeeded or not), unless all it got was an
 * ambiguous reference to ask about; a turn without tools that asks the person something
 * is a clarification; anything else is an answer.
 */
export function decisionOf(turn: {
  readonly confirmationRequested: boolean;
  readonly toolsRequested: number;
  readonly toolsSucceeded: number;
  readonly lastToolErrorCode: string | null;
  readonly finalText: string;
}): DecisionType {
  if (turn.confirmationRequested) return 'REQUEST_CONFIRMATION';
  if (turn.toolsSucceeded === 0 && turn.lastToolErrorCode !== null && CLARIFYING_ERRORS.has(turn.lastToolErrorCode)) {
    return 'ASK_CLARIFICATION';
  }
  if (turn.toolsRequested > 0) return 'INVOKE_TOOL';
  return asksAQuestion(turn.finalText) ? 'ASK_CLARIFICATION' : 'RESPOND_ONLY';
}

/**
 * A phrase in quotes, like 'what's left?': an example to say, not a question asked. An opening
 * quote with no closing one after it on its line is kept as it is, with the rest of the line:
 * a later opening quote on that line would find no closing one either, so the line is read
 * once, not once per quote.
 */
const QUOTED = /(^|[\s(:])['"‘“](?:(.*?['"’”])(?=[\s.,;:!?)]|$)|.*)/gu;

/** True when the text asks the person something, outside any quoted example phrase. */
export function asksAQuestion(text: string): boolean {
  return text.replace(QUOTED, (match, before: string, quoted?: string) => (quoted === undefined ? match : before)).includes('?');
}
