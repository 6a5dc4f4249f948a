import {
  LanguageModelBadRequestError,
  LanguageModelContentFilterError,
  LanguageModelError,
  LanguageModelInvalidJsonError,
  LanguageModelRateLimitError,
  LanguageModelTimeoutError,
  LanguageModelUnavailableError,
} from './language-model-errors';
import { POLICY_DENIED, POLICY_LIMIT_REACHED } from '../policy/policy';
import { policyRefusalSentence } from '../policy/policy-refusal';
import { TokenBudgetSpentError } from './token-budget';

export type FailureClass =
  | 'PROVIDER_UNAVAILABLE'
  | 'RATE_LIMITED'
  | 'TIMEOUT'
  | 'LIMIT_REACHED'
  | 'CONTENT_FILTERED'
  | 'BAD_MODEL_REQUEST'
  | 'TOOL_NOT_FOUND'
  | 'INVALID_ARGUMENTS'
  | 'NOT_AUTHORIZED'
  | 'NOT_FOUND'
  | 'BUDGET_SPENT'
  | 'MONTH_BUDGET_SPENT'
  | 'UNKNOWN';

export type AuditStatus = 'failed' | 'rejected' | 'unknown';

export interface FailureTreatment {
  /** Worth trying again unchanged (by the adapter's bounded retry, or by the person). */
  readonly retryable: boolean;
  /** What the model reads when the failure concerns one of its tool calls. */
  readonly modelSees: string;
  /** The sentence the person reads. */
  readonly userSees: string;
  readonly auditStatus: AuditStatus;
}

/**
 * Said for a failure the person can do nothing about but retry, with a way out if retrying
 * does not help: the operator's support contact (SUPPORT_CONTACT), or support in general.
 */
export function unexpectedErrorSentence(supportContact: string | null): string {
  const support = supportContact === null ? 'contact support' : `contact support at ${supportContact}`;
  return `An unexpected error occurred. Please try again, or ${support} if it keeps happening.`;
}

export const TREATMENTS: Readonly<Record<FailureClass, FailureTreatment>> = {
  PROVIDER_UNAVAILABLE: {
    retryable: true,
    modelSees: 'The service is unavailable.',
    userSees: "I'm having trouble connecting to my AI service. Please try again.",
    auditStatus: 'failed',
  },
  RATE_LIMITED: {
    retryable: true,
    modelSees: 'Too many requests.',
    userSees: "I'm currently experiencing high demand. Please try again in a moment.",
    auditStatus: 'failed',
  },
  TIMEOUT: {
    retryable: true,
    modelSees: 'The tool did not answer in time; it may or may not have run.',
    userSees: 'That request took too long. Please try a simpler query.',
    auditStatus: 'unknown',
  },
  LIMIT_REACHED: {
    retryable: false,
    modelSees: 'The limit of tool calls for this turn is reached; answer with what you have.',
    userSees: 'That request is too complex. Could you break it into smaller steps?',
    auditStatus: 'rejected',
  },
  CONTENT_FILTERED: {
    retryable: false,
    modelSees: 'The request was refused by a content filter.',
    userSees: "I can't help with that request. Could you rephrase it?",
    auditStatus: 'rejected',
  },
  BAD_MODEL_REQUEST: {
    retryable: false,
    modelSees: 'The request to the model was malformed.',
    userSees: unexpectedErrorSentence(null),
    auditStatus: 'failed',
  },
  TOOL_NOT_FOUND: {
    retryable: false,
    modelSees: 'That tool does not exist; use one of the listed tools.',
    userSees: "I couldn't do that. Please try rephrasing your request.",
    auditStatus: 'rejected',
  },
  INVALID_ARGUMENTS: {
    retryable: false,
    modelSees: 'The arguments do not match the tool schema; correct them.',
    userSees: "I couldn't understand that request. Please try rephrasing.",
    auditStatus: 'rejected',
  },
  NOT_AUTHORIZED: {
    retryable: false,
    modelSees: 'Not allowed.',
    userSees: "I'm not able to do that.",
    auditStatus: 'rejected',
  },
  NOT_FOUND: {
    retryable: false,
    modelSees: 'Nothing matched.',
    userSees: "I couldn't find that; it may have been deleted.",
    auditStatus: 'failed',
  },
  BUDGET_SPENT: {
    retryable: false,
    modelSees: "The person's daily budget for the assistant is spent.",
    userSees:
      "You've used today's allowance for the assistant, so I can't answer right now. It renews at midnight UTC, " +
      'and nothing of yours has changed.',
    auditStatus: 'rejected',
  },
  MONTH_BUDGET_SPENT: {
    retryable: false,
    modelSees: "The person's monthly budget for the assistant is spent.",
    userSees:
      "You've used this month's budget for the assistant, so I can't answer right now. It renews on the 1st (UTC), " +
      'and nothing of yours has changed.',
    auditStatus: 'rejected',
  },
  UNKNOWN: {
    retryable: false,
    modelSees: 'An unexpected error occurred.',
    userSees: unexpectedErrorSentence(null),
    auditStatus: 'failed',
  },
};

/** Every failure class, in the taxonomy's order. */
export const FAILURE_CLASSES = Object.keys(TREATMENTS) as readonly FailureClass[];

/**
 * A failed turn as the person is told it: the friendly sentence of its failure class, and the
 * class. The chat answer's `error` and the stream's `error` event carry this.
 */
export interface TurnFailure {
  readonly message: string;
  readonly category: FailureClass;
}

export function turnFailure(failureClass: FailureClass, supportContact: string | null = null): TurnFailure {
  return { message: failureSentence(failureClass, supportContact), category: failureClass };
}

/**
 * The sentence the person reads for a failure class: the treatment's, except that an
 * unexpected failure (UNKNOWN, BAD_MODEL_REQUEST: nothing the person did) names the support
 * contact when one is configured.
 */
export function failureSentence(failureClass: FailureClass, supportContact: string | null): string {
  return failureClass === 'UNKNOWN' || failureClass === 'BAD_MODEL_REQUEST'
    ? unexpectedErrorSentence(supportContact)
    : TREATMENTS[failureClass].userSees;
}

/** Said beside an answer that may be incomplete. */
export const WARNINGS = {
  LIMIT_REACHED: 'I reached the limit of steps for one request, so this answer may be incomplete.',
  SHORTENED: 'The answer was shortened.',
} as const;

/**
 * Said instead of a model's reply that failed the reply check (reply-check.ts) when the
 * turn has nothing else to say: after tool calls that succeeded but whose results say
 * nothing in words, and when no tool ran.
 */
export const UNFIT_REPLY = {
  DONE: 'Done.',
  NO_WORDS: "Sorry, I couldn't put my answer into words. Please ask me again.",
} as const;

/** The failure classes of a model call a budget refused before it was made. */
export function isBudgetSpent(failureClass: FailureClass | null | undefined): boolean {
  return failureClass === 'BUDGET_SPENT' || failureClass === 'MONTH_BUDGET_SPENT';
}

/** Which failure class an error thrown while calling the model belongs to. */
export function classifyModelFailure(error: unknown): FailureClass {
  if (error instanceof TokenBudgetSpentError) return error.budget === 'month' ? 'MONTH_BUDGET_SPENT' : 'BUDGET_SPENT';
  if (error instanceof LanguageModelRateLimitError) return 'RATE_LIMITED';
  if (error instanceof LanguageModelTimeoutError) return 'TIMEOUT';
  if (error instanceof LanguageModelUnavailableError) return 'PROVIDER_UNAVAILABLE';
  if (error instanceof LanguageModelContentFilterError) return 'CONTENT_FILTERED';
  if (error instanceof LanguageModelBadRequestError) return 'BAD_MODEL_REQUEST';
  if (error instanceof LanguageModelInvalidJsonError) return 'BAD_MODEL_REQUEST';
  if (error instanceof LanguageModelError) return 'PROVIDER_UNAVAILABLE';
  if (error instanceof Error && error.name === 'AbortError') return 'TIMEOUT';
  return 'UNKNOWN';
}

const FAILURE_OF_TOOL_ERROR: Readonly<Record<string, FailureClass>> = {
  UNKNOWN_TOOL: 'TOOL_NOT_FOUND',
  MALFORMED_ARGUMENTS: 'INVALID_ARGUMENTS',
  ARGUMENTS_TOO_LARGE: 'INVALID_ARGUMENTS',
  INVALID_ARGUMENTS: 'INVALID_ARGUMENTS',
  MISSING_TARGET: 'INVALID_ARGUMENTS',
  NOT_AUTHORIZED: 'NOT_AUTHORIZED',
  // The person's yes is missing, or no longer covers what is there: refused, nothing ran.
  CONFIRMATION_REQUIRED: 'NOT_AUTHORIZED',
  CONFIRMATION_STALE: 'NOT_AUTHORIZED',
  LIMIT_REACHED: 'LIMIT_REACHED',
  TIMEOUT: 'TIMEOUT',
  // Stopped by the policy (domain/policy): said in the policy's own words (policyRefusalSentence).
  [POLICY_DENIED]: 'NOT_AUTHORIZED',
  [POLICY_LIMIT_REACHED]: 'LIMIT_REACHED',
};

/**
 * How a product words its own tools' errors (the todo product's: domain/todo/tool-errors.ts):
 * the failure class of each of its codes, the sentence for one, and what the person calls an
 * argument. The shared core knows only the codes every tool may answer.
 */
export interface ToolErrorWording {
  readonly classOf: Readonly<Record<string, FailureClass>>;
  /** The sentence for one of the product's codes, from the error's details; null for its class's sentence. */
  sentence(code: string, details: Readonly<Record<string, unknown>>): string | null;
  /** What the person calls an argument (`number`: "task number"); others are named by the field. */
  readonly fieldWords: Readonly<Record<string, string>>;
}

/** The wording of a product with no codes of its own. */
export const NO_TOOL_ERROR_WORDING: ToolErrorWording = { classOf: {}, sentence: () => null, fieldWords: {} };

/** The failure class of a tool's error code (the product's own, or one every tool may answer); unknown codes are UNKNOWN. */
export function failureOfToolError(code: string, wording: ToolErrorWording = NO_TOOL_ERROR_WORDING): FailureClass {
  return wording.classOf[code] ?? FAILURE_OF_TOOL_ERROR[code] ?? 'UNKNOWN';
}

/**
 * The sentence a person reads for a tool's error: never its code or schema text. Specific
 * where the error says enough ("That title is too long: 200 characters at most."), else
 * the failure class's sentence.
 */
export function friendlyToolError(error: { readonly code: string; readonly details?: unknown }, wording: ToolErrorWording): string {
  const details = typeof error.details === 'object' && error.details !== null ? (error.details as Record<string, unknown>) : {};
  // Codes may arrive namespaced ("TODO.TASK_BUSY"); the last segment is the kind.
  const code = error.code.split('.').pop() ?? '';
  const own = wording.sentence(code, details) ?? policyRefusalSentence(code, details);
  if (own !== null) return own;
  if (code !== 'INVALID_ARGUMENTS') return TREATMENTS[failureOfToolError(code, wording)].userSees;
  const field =
    typeof details.field === 'string' && details.field !== 'arguments'
      ? (wording.fieldWords[details.field] ?? details.field.replace(/_/g, ' '))
      : null;
  if (field && details.rule === 'too_long') {
    return typeof details.limit === 'number'
      ? `That ${field} is too long: ${details.limit} characters at most.`
      : `That ${field} is too long.`;
  }
  if (field && details.rule === 'too_short') return `That ${field} is too short.`;
  if (field && details.rule === 'required') return `Could you provide more details about the ${field}?`;
  return TREATMENTS.INVALID_ARGUMENTS.userSees;
}
