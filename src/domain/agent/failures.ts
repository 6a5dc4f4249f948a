import {
  LanguageModelBadRequestError,
  LanguageModelContentFilterError,
  LanguageModelError,
  LanguageModelInvalidJsonError,
  LanguageModelRateLimitError,
  LanguageModelTimeoutError,
  LanguageModelUnavailableError,
} from './language-model-errors';
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
    userSees: "I couldn't find that task; it may have been deleted. Say 'show my tasks' to see what's on your list.",
    auditStatus: 'failed',
  },
  BUDGET_SPENT: {
    retryable: false,
    modelSees: "The person's daily budget for the assistant is spent.",
    userSees:
      "You've used today's allowance for the assistant, so I can't answer right now. It renews at midnight UTC; " +
      'your tasks are all still in your task list.',
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

/** "I couldn't find a task about '<query>' in your list. Say 'show my tasks' to see what's on it." */
export function notFoundSentence(query: string): string {
  return `I couldn't find a task about '${query}' in your list. Say 'show my tasks' to see what's on it.`;
}

/**
 * What a person is told when TASK_NOT_FOUND answered a call, from its details: the words
 * looked for, the number, or the scope of a deletion. Each names what to do next.
 */
export function taskNotFoundSentence(details: Readonly<Record<string, unknown>>): string {
  if (typeof details.query === 'string') return notFoundSentence(details.query);
  if (typeof details.number === 'number') {
    return `I couldn't find task ${details.number} in your list. Say 'show my tasks' to see their numbers.`;
  }
  if (details.scope === 'all') return 'Your list is already empty.';
  if (details.scope === 'completed') return "You don't have any completed tasks to remove.";
  return TREATMENTS.NOT_FOUND.userSees;
}

/** Which failure class an error thrown while calling the model belongs to. */
export function classifyModelFailure(error: unknown): FailureClass {
  if (error instanceof TokenBudgetSpentError) return 'BUDGET_SPENT';
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
  AMBIGUOUS_TASK: 'INVALID_ARGUMENTS',
  TASK_NOT_FOUND: 'NOT_FOUND',
  NOT_AUTHORIZED: 'NOT_AUTHORIZED',
  // The person's yes is missing, or no longer covers what is there: refused, nothing ran.
  CONFIRMATION_REQUIRED: 'NOT_AUTHORIZED',
  CONFIRMATION_STALE: 'NOT_AUTHORIZED',
  LIMIT_REACHED: 'LIMIT_REACHED',
  TIMEOUT: 'TIMEOUT',
};

/** The failure class of a tool's error code; unknown codes are UNKNOWN. */
export function failureOfToolError(code: string): FailureClass {
  return FAILURE_OF_TOOL_ERROR[code] ?? 'UNKNOWN';
}

/** What the person calls an argument: "title", "task number". */
const FIELD_WORDS: Readonly<Record<string, string>> = { number: 'task number', numbers: 'task numbers', query: 'description of the task' };

/**
 * The sentence a person reads for a tool's error: never its code or schema text. Specific
 * where the error says enough ("That title is too long: 200 characters at most."), else
 * the failure class's sentence.
 */
export function friendlyToolError(error: { readonly code: string; readonly details?: unknown }): string {
  const details = typeof error.details === 'object' && error.details !== null ? (error.details as Record<string, unknown>) : {};
  // Codes may arrive namespaced ("TODO.TASK_BUSY"); the last segment is the kind.
  const code = error.code.split('.').pop() ?? '';
  switch (code) {
    case 'TASK_LIMIT_REACHED':
      return typeof details.limit === 'number'
        ? `Your list is full: it holds at most ${details.limit} tasks. Delete some to make room.`
        : 'Your list is full. Delete some tasks to make room.';
    case 'TASK_NOT_FOUND':
      return taskNotFoundSentence(details);
    case 'TASK_BUSY':
      return 'That task is being changed right now. Please try again in a moment.';
    case 'INVALID_ARGUMENTS': {
      const field =
        typeof details.field === 'string' && details.field !== 'arguments'
          ? (FIELD_WORDS[details.field] ?? details.field.replace(/_/g, ' '))
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
    default:
      return TREATMENTS[failureOfToolError(code)].userSees;
  }
}
