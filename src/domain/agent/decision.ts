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
 * What kind of decision a finished turn was, by what the model did (the decision mapping of
 * the agent engine's contract):
 * 1. the server asked the person to confirm a deletion or a bulk change: REQUEST_CONFIRMATION;
 * 2. every tool call it made was refused as ambiguous or without a target (AMBIGUOUS_TASK,
 *    MISSING_TARGET), so the answer asks which task: ASK_CLARIFICATION;
 * 3. it called tools, whether they succeeded or not: INVOKE_TOOL;
 * 4. without tools, its answer asks for what it needs to act (asksToClarify): ASK_CLARIFICATION;
 * 5. anything else (an answer, a greeting, a refusal, an offer of more help): RESPOND_ONLY.
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
  return asksToClarify(turn.finalText) ? 'ASK_CLARIFICATION' : 'RESPOND_ONLY';
}

/**
 * A phrase in quotes, like 'what's left?': an example to say, not a question asked. An opening
 * quote with no closing one after it on its line is kept as it is, with the rest of the line:
 * a later opening quote on that line would find no closing one either, so the line is read
 * once, not once per quote.
 */
const QUOTED = /(^|[\s(:])['"‘“](?:(.*?['"’”])(?=[\s.,;:!?)]|$)|.*)/gu;

/** The text without its quoted example phrases (a quote left open is kept). */
function withoutQuotedExamples(text: string): string {
  return text.replace(QUOTED, (match, before: string, quoted?: string) => (quoted === undefined ? match : before));
}

/** True when the text asks the person something, outside any quoted example phrase. */
export function asksAQuestion(text: string): boolean {
  return withoutQuotedExamples(text).includes('?');
}

/**
 * How a question that asks for what the assistant needs begins: a choice between candidates
 * ("Which task do you mean: 1. … or 2. …?", "Which one: …?", "Did you mean …?") or a missing
 * detail ("Could you provide more details about …?", "Can you tell me the new title?").
 */
const ASKS_TO_CHOOSE_OR_TELL =
  /^(?:which\b|(?:did|do) you mean\b|(?:could|can|would|will) you (?:please )?(?:provide|give|tell|share|clarify|specify|say|let me know)\b)/i;
/** "What should the new title be?", "What would you like to change?": a question about a detail of a task… */
const ASKS_WHAT = /^what\b/i;
const TASK_DETAIL = /\b(?:title|name|call|called|change|priority|description|details?|say)\b/i;
/** …unless it offers more ("What else would you like to change?"). */
const OFFERS_MORE = /\b(?:else|anything|more)\b/i;
/** "So, which one…?", "OK, what should…?": a word before the question changes nothing. */
const LEADING_WORD = /^(?:so|and|ok|okay|then|sure|alright|great|sorry),?\s+/i;
/** The assistant says it did not understand the request: its question is what the person meant. */
const NOT_UNDERSTOOD = /\b(?:not sure what you|(?:did not|didn't|do not|don't) (?:quite )?(?:understand|follow|catch))\b/i;

/**
 * True when the text asks the person for something the assistant needs in order to act: which
 * task (a choice between candidates), a missing detail (a title, the change to make), or what
 * they meant after it did not understand. A question is read from the start of each of its
 * sentences (after ".", "!", ";", ":" or a line break) up to its "?"; quoted examples aside.
 * Courtesy questions ask for nothing it needs: "How can I help you today?", "Anything else?",
 * "Would you like to see your list?", a refusal's "Can I help with your tasks instead?".
 */
export function asksToClarify(text: string): boolean {
  const questions = withoutQuotedExamples(text).split('?').slice(0, -1);
  if (questions.length === 0) return false;
  if (NOT_UNDERSTOOD.test(text)) return true;
  return questions.some((question) =>
    question
      .split(/[.!;:\n]/)
      .map((sentence) => sentence.trim().replace(LEADING_WORD, ''))
      .some(
        (sentence) =>
          ASKS_TO_CHOOSE_OR_TELL.test(sentence) || (ASKS_WHAT.test(sentence) && TASK_DETAIL.test(sentence) && !OFFERS_MORE.test(sentence)),
      ),
  );
}
