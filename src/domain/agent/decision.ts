export const DECISION_TYPES = ['RESPOND_ONLY', 'INVOKE_TOOL', 'ASK_CLARIFICATION', 'REQUEST_CONFIRMATION'] as const;
export type DecisionType = (typeof DECISION_TYPES)[number];

export type TurnStatus = 'completed' | 'max_iterations_reached' | 'error';

/** Tool error codes after which the right answer is a question to the person. */
const CLARIFYING_ERRORS = new Set(['AMBIGUOUS_TASK', 'MISSING_TARGET']);

/**
 * What kind of decision a finished turn was. A pending confirmation wins; then any tool
 * that ran; then a question (asked by the model, or forced by an ambiguous reference).
 */
export function decisionOf(turn: {
  readonly confirmationRequested: boolean;
  readonly toolsSucceeded: number;
  readonly lastToolErrorCode: string | null;
  readonly finalText: string;
}): DecisionType {
  if (turn.confirmationRequested) return 'REQUEST_CONFIRMATION';
  if (turn.toolsSucceeded > 0) return 'INVOKE_TOOL';
  if (turn.lastToolErrorCode !== null && CLARIFYING_ERRORS.has(turn.lastToolErrorCode)) return 'ASK_CLARIFICATION';
  if (turn.finalText.trim().endsWith('?') && turn.lastToolErrorCode !== null) return 'ASK_CLARIFICATION';
  return 'RESPOND_ONLY';
}
