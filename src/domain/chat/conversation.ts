import { DomainError, DomainValidationError, RateLimitedError } from '../shared/domain-error';
import type { ToolArguments } from '../agent/tool-call-validation';
import type { DecisionType, TurnStatus } from '../agent/decision';
import { cleanText } from '../shared/untrusted-text-normalisation';

export const MESSAGE_MAX_LENGTH = 4000;

/** One tool call as it happened in a turn, kept with the assistant's message. */
export interface ToolCallRecord {
  readonly id: string;
  readonly tool: string;
  readonly arguments: ToolArguments | string;
  readonly success: boolean;
  readonly result?: unknown;
  readonly error?: { readonly code: string; readonly message: string; readonly details?: unknown };
  readonly durationMs: number;
}

/**
 * How a stored answer's turn ended: as the agent loop reported, or `interrupted` when the
 * turn never finished (its process stopped) and the answer was written for it afterwards.
 */
export type AnswerStatus = TurnStatus | 'interrupted';

/** The answer a turn gets when it was cut off before it could answer itself. */
export const INTERRUPTED_ANSWER = 'Sorry, I was interrupted before I could answer. Please check your tasks and try again.';

export interface StoredMessage {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly content: string;
  readonly toolCalls: readonly ToolCallRecord[];
  readonly decisionType: DecisionType | null;
  /** The answer's; null on the person's messages. */
  readonly status: AnswerStatus | null;
  readonly createdAt: Date;
}

export interface ConversationSummary {
  readonly id: string;
  readonly title: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export class ConversationNotFoundError extends DomainError {
  readonly code = 'CHAT.CONVERSATION_NOT_FOUND';
  readonly kind = 'not_found' as const;
  constructor() {
    super('Conversation not found');
  }
}

/** No such pending confirmation in that conversation of the user's. */
export class ConfirmationNotFoundError extends DomainError {
  readonly code = 'CHAT.CONFIRMATION_NOT_FOUND';
  readonly kind = 'not_found' as const;
  constructor() {
    super('Confirmation not found in this conversation');
  }
}

/** The person started more chat turns this minute than their limit (CHAT_RATE_LIMIT_PER_MINUTE). */
export class ChatTurnLimitError extends RateLimitedError {
  readonly code = 'HTTP.RATE_LIMITED';
  constructor(retryAfterSeconds: number) {
    super('chat', retryAfterSeconds, 'Too many requests; please retry in a minute');
  }
}

export class InvalidMessageError extends DomainValidationError {
  readonly code = 'CHAT.INVALID_MESSAGE';
  constructor() {
    super('message', `message must be 1 to ${MESSAGE_MAX_LENGTH} characters long`);
  }
}

/** A person's message as it is stored and sent to the model: cleaned (cleanText), trimmed, 1 to MESSAGE_MAX_LENGTH characters. */
export function validMessage(raw: string): string {
  const message = cleanText(raw).trim();
  if (message.length === 0 || message.length > MESSAGE_MAX_LENGTH) throw new InvalidMessageError();
  return message;
}

/** A short title for the conversation list, from its first message. */
export function conversationTitle(firstMessage: string): string {
  const oneLine = firstMessage.replace(/\s+/g, ' ').trim();
  return oneLine.length <= 60 ? oneLine : `${oneLine.slice(0, 57)}...`;
}
