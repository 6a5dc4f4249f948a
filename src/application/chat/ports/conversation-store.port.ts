import type { DecisionMeasures } from '../../agent/decision-measures';
import type { Page } from '../../shared/page';
import type { ConfirmationRecord, PendingConfirmation } from '../../../domain/agent/confirmation';
import type { DecisionType, TurnStatus } from '../../../domain/agent/decision';
import type { FailureClass } from '../../../domain/agent/failures';
import type { ModelSampling } from '../../../domain/agent/limits';
import type { IntentType, OutcomeCategory } from '../../../domain/agent/turn-outcome';
import type { ConversationSummary, StoredMessage, ToolCallRecord } from '../../../domain/chat/conversation';

/** A stored message with its place in the conversation. */
export interface HistoryMessage extends StoredMessage {
  readonly seq: number;
}

/** What the model made of a conversation's messages up to and including `lastSeq`. */
export interface ConversationDigest {
  readonly id: string;
  readonly content: string;
  readonly lastSeq: number;
  /** Stored messages it covers, from the first. */
  readonly messages: number;
}

/** What the model was told in a turn, for the decision log: which summary and which messages. */
export interface TurnContextRecord {
  readonly summaryId: string | null;
  readonly firstSeq: number | null;
  readonly lastSeq: number | null;
  readonly messages: number;
  readonly estimatedTokens: number;
}

export interface TurnContext {
  /** The finished messages after the latest summary (the last `window` of them), oldest first. */
  readonly history: readonly HistoryMessage[];
  /** The conversation's latest summary, if one was made. */
  readonly summary: ConversationDigest | null;
  /** The conversation's newest unused pending confirmation, if any, expired or not (an expired one gets its own answer). */
  readonly pendingConfirmation: PendingConfirmation | null;
}

export interface DecisionLogEntry extends DecisionMeasures {
  readonly id: string;
  readonly userId: string;
  readonly conversationId: string;
  readonly decisionType: DecisionType;
  /** For ASK_CLARIFICATION: the question the person was asked; null otherwise. */
  readonly clarificationQuestion: string | null;
  readonly status: TurnStatus;
  readonly failureClass: FailureClass | null;
  readonly context: TurnContextRecord | null;
  /** What the person wanted, as the turn's tool calls show it. */
  readonly intentType: IntentType;
  /** How the turn ended for the person. */
  readonly outcomeCategory: OutcomeCategory;
  /** What the turn's model calls were made with: the server's sampling, or the request's own. */
  readonly sampling: ModelSampling;
}

/**
 * What the caller of a turn did about the signed-in account. Every caller says it, so that a
 * route that forgets does not compile:
 * - `check`: the bearer guard left reading the account to the turn (a session on a route
 *   marked AccountCheckedByHandler). The turn's opening statement reads it first and opens the
 *   turn, counting it against the limit, only if the account exists under `credentialsVersion`,
 *   the version the session's token was issued under.
 * - `checked-by-guard`: the guard has read the account already (a personal access token, or
 *   any route not so marked); the turn reads nothing more.
 */
export type TurnAccountCheck = { readonly kind: 'check'; readonly credentialsVersion: number } | { readonly kind: 'checked-by-guard' };

export interface StartTurnInput {
  readonly userId: string;
  readonly conversationId: string | null;
  readonly message: string;
  readonly decisionId: string;
  /** Who will answer: recorded on the pending decision. */
  readonly model: { readonly provider: string; readonly model: string };
  readonly window: number;
  /** The turn counts against the user's per-minute limit and opens only within it. */
  readonly turnsPerMinute: number;
  readonly account: TurnAccountCheck;
  readonly now: Date;
}

export interface FinishedTurn {
  readonly userId: string;
  readonly conversationId: string;
  readonly assistantMessage: {
    readonly content: string;
    readonly toolCalls: readonly ToolCallRecord[];
    readonly decisionType: DecisionType;
    readonly status: TurnStatus;
  };
  readonly decision: DecisionLogEntry;
  /** A new destructive call waiting for the person's yes, under the id the turn gave it (the API shows it). */
  readonly newPendingConfirmation: PendingConfirmation | null;
  /** An earlier pending confirmation the message did not answer: it is dropped. */
  readonly droppedPendingConfirmationId: string | null;
  /** A summary this turn made of the conversation's older part. */
  readonly newSummary: ConversationDigest | null;
}

/**
 * Conversations, messages, pending confirmations and decision logs. Shaped around a chat turn
 * so that a turn costs two statements of its own: start and finish.
 */
export abstract class ConversationStore {
  /**
   * Stores the person's message (creating the conversation when `conversationId` is null)
   * and, right after it, the turn's answer-to-be and its decision log row (status
   * `pending`, referencing the message by its id) under `decisionId`; returns what came before: the latest summary, the last
   * `window` finished messages after it, and the open pending confirmation. One statement, so the context is read in the
   * same snapshot it is written, and no tool call's audit row can name a decision that is
   * not there.
   * Counts the turn against the user's `turnsPerMinute` first, in the same statement: past
   * the limit nothing else is written.
   * An `account` to `check` comes before everything: a stale session writes nothing.
   * @throws AccountGoneError, CredentialsChangedError when the account check fails.
   * @throws ChatTurnLimitError past the limit (the block lasts a minute from the hit that passed it).
   * @throws ConversationNotFoundError when the user has no such conversation (the hit still counts).
   */
  abstract startTurn(input: StartTurnInput): Promise<TurnContext & { conversationId: string }>;
  /**
   * A new conversation holding only a question the server asks for another channel (an MCP
   * client that cannot ask the person): the question as its answer-so-far, and `question` as
   * its open pending confirmation, so the console shows it as any chat confirmation, and a
   * `confirmation.waiting` notification for the person. One statement. @returns the
   * conversation's id
   */
  abstract openWithQuestion(input: {
    readonly userId: string;
    readonly title: string;
    readonly question: Omit<PendingConfirmation, 'conversationId' | 'userId'>;
    readonly now: Date;
  }): Promise<string>;
  /** Fills in the answer and completes the decision log row started under `turn.decision.id`. */
  abstract finishTurn(turn: FinishedTurn, now: Date): Promise<void>;
  /** Resolves the action, once: @returns it, or null when it is gone, resolved or expired. */
  abstract takePendingConfirmation(
    id: string,
    userId: string,
    resolution: 'confirmed' | 'cancelled',
    now: Date,
  ): Promise<PendingConfirmation | null>;
  /**
   * The conversation's open question, as startTurn would load it (the newest unresolved pending
   * confirmation), if it is the user's and still unexpired at `now`; null otherwise.
   */
  abstract openPendingConfirmation(userId: string, conversationId: string, now: Date): Promise<PendingConfirmation | null>;
  /**
   * One pending confirmation of the user's conversation, whatever became of it (answered,
   * expired, set aside), as its state is read; null when there is none by that id there.
   */
  abstract confirmationRecord(userId: string, conversationId: string, confirmationId: string): Promise<ConfirmationRecord | null>;
  abstract listConversations(userId: string, limit: number, cursor: string | null): Promise<Page<ConversationSummary>>;
  /** Newest `limit` messages before the cursor, returned oldest first; null if no such conversation. */
  abstract listMessages(userId: string, conversationId: string, limit: number, cursor: string | null): Promise<Page<StoredMessage> | null>;
}
