import { clarifyingQuestion, lastQuestion, NO_VOCABULARY, type SeenItem, type ToolVocabulary } from './clarification';

export const DECISION_TYPES = ['RESPOND_ONLY', 'INVOKE_TOOL', 'ASK_CLARIFICATION', 'REQUEST_CONFIRMATION'] as const;
export type DecisionType = (typeof DECISION_TYPES)[number];

export const TURN_STATUSES = ['completed', 'max_iterations_reached', 'error'] as const;
export type TurnStatus = (typeof TURN_STATUSES)[number];

/**
 * Why a turn ended: the model answered (`stop`), its answer ran into the token limit
 * (`length`) or a content filter, the person was asked to confirm, a limit of model calls
 * or tool calls was reached (an answer was still worded from what was gathered), the
 * deadline passed, the person's budget (the day's, the month's, or a policy rule on it) could
 * not cover another model call, a policy rule refused the turn itself (`policy_denied`), or
 * the model failed.
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
  'policy_denied',
  'error',
] as const;
export type TurnFinishReason = (typeof FINISH_REASONS)[number];

/** What a turn did, besides its reply: what the decision is made of. */
export interface TurnFacts {
  /** The server asked the person to confirm a deletion or a bulk change. */
  readonly confirmationRequested: boolean;
  readonly toolsRequested: number;
  /** Calls of tools that change data (`mutates`) that succeeded. */
  readonly changesMade: number;
  readonly lastToolErrorCode: string | null;
  /** The items the model read this turn (the person's tasks, from tool results): the candidates it may offer. */
  readonly seen: readonly SeenItem[];
  /** What the tools on offer take and do. */
  readonly vocabulary: ToolVocabulary;
  /** The tools' error codes after which the answer is a question to the person (their product's ToolWords.clarifyingErrorCodes). */
  readonly clarifyingErrorCodes: readonly string[];
}

/** A turn that only talked: no tool, nothing seen. */
export const NO_TOOLS: TurnFacts = {
  confirmationRequested: false,
  toolsRequested: 0,
  changesMade: 0,
  lastToolErrorCode: null,
  seen: [],
  vocabulary: NO_VOCABULARY,
  clarifyingErrorCodes: [],
};

export interface TurnDecision {
  readonly type: DecisionType;
  /** For ASK_CLARIFICATION: the question the person was asked, as the reply words it; null otherwise. */
  readonly clarificationQuestion: string | null;
}

/**
 * What kind of decision a finished turn was, by what the model did and what it asked (the
 * decision mapping of the agent engine's contract), from its facts and the reply the person reads:
 * 1. the server asked the person to confirm a deletion or a bulk change: REQUEST_CONFIRMATION;
 * 2. it changed nothing and its reply asks for something a call needs (clarifyingQuestion:
 *    a choice among the tasks it saw, a tool's argument, what the person meant): ASK_CLARIFICATION;
 *    so does a turn that changed nothing after its last call was refused with an error that asks
 *    back (clarifyingErrorCodes: ambiguous, or without a target), however the model worded it;
 * 3. it called tools, whether they succeeded or not: INVOKE_TOOL;
 * 4. anything else (an answer, a greeting, a refusal, an offer of more help): RESPOND_ONLY.
 */
export function decisionOf(facts: TurnFacts, reply: string): TurnDecision {
  if (facts.confirmationRequested) return { type: 'REQUEST_CONFIRMATION', clarificationQuestion: null };
  if (facts.changesMade === 0) {
    const question = clarifyingQuestion(reply, facts.seen, facts.vocabulary);
    if (question !== null) return { type: 'ASK_CLARIFICATION', clarificationQuestion: question };
    if (facts.lastToolErrorCode !== null && facts.clarifyingErrorCodes.includes(facts.lastToolErrorCode)) {
      return { type: 'ASK_CLARIFICATION', clarificationQuestion: lastQuestion(reply) ?? reply };
    }
  }
  return { type: facts.toolsRequested > 0 ? 'INVOKE_TOOL' : 'RESPOND_ONLY', clarificationQuestion: null };
}
