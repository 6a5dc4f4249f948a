import { type TodoTools } from '../todo/tools/todo-tools';
import type { PendingConfirmation } from '../../domain/agent/confirmation';
import type { DecisionType, TurnFinishReason, TurnStatus } from '../../domain/agent/decision';
import type { TurnFailure } from '../../domain/agent/failures';
import type { ToolCallRecord } from '../../domain/chat/conversation';
import type { AgentLoop } from '../agent/agent-loop';
import type { AgentSettings } from '../agent/agent-settings';
import type { Toolbox } from '../agent/ports/toolbox.port';
import type { Clock } from '../shared/ports/clock.port';
import type { IdGenerator } from '../shared/ports/id-generator.port';
import type { ConversationStore, TurnAccountCheck } from './ports/conversation-store.port';

export interface ChatTurnInput {
  readonly userId: string;
  readonly conversationId?: string;
  readonly message: string;
  /** What the caller did about the signed-in account (StartTurnInput.account). */
  readonly account: TurnAccountCheck;
  readonly confirmationId?: string;
  /** The request's own sampling for the turn's model calls, within the server's bounds (requestedSampling). */
  readonly temperature?: number;
  readonly maxTokens?: number;
}

export interface ChatReply {
  readonly conversationId: string;
  readonly response: string;
  /** The turn's decision: its type, its decision log's id and, for ASK_CLARIFICATION, the question asked. */
  readonly decision: { readonly type: DecisionType; readonly id: string; readonly clarificationQuestion: string | null };
  /** The turn's own messages, oldest first: the person's, as stored, and the answer. */
  readonly messages: readonly TurnMessage[];
  readonly toolCalls: readonly ToolCallRecord[];
  readonly iterations: number;
  readonly status: TurnStatus;
  readonly finishReason: TurnFinishReason;
  readonly warning: string | null;
  /** What the turn waits for the person's yes to run, as stored (its question is `prompt`); null otherwise. */
  readonly pendingConfirmation: PendingConfirmation | null;
  /** False when the turn failed (status `error`): then `error` says how, as the person is told it. */
  readonly success: boolean;
  readonly error: TurnFailure | null;
}

/** One message of a turn, in the agent service contract's shape. */
export interface TurnMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

/** What the steps of a chat turn work with (TurnOpening, TurnRoutes, TurnClosing). */
export interface TurnDeps {
  readonly store: ConversationStore;
  readonly agent: AgentLoop;
  readonly settings: AgentSettings;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** The tools' own words and definitions (Toolbox.words, Toolbox.definitions). */
  readonly toolbox: Toolbox;
  /** The todo tools' descriptors: the system prompt's tool lines, what a stored call did to tasks. */
  readonly tools: TodoTools;
}
