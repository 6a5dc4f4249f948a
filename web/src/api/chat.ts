/** Conversations, their messages, and a chat turn over its stream. */
import type {
  ChatErrorDto,
  ChatResponseDto,
  ConversationDto,
  ConfirmationStateDto,
  ConversationPageDto,
  GetConfirmationData,
  GetConfirmationResponse,
  ListConversationsData,
  ListConversationsResponse,
  ListMessagesData,
  ListMessagesResponse,
  MessageDto,
  PendingConfirmationDto,
  StreamChatMessageData,
  ToolCallDto,
} from '../generated/types.gen';
import { json, readEvents, send, type Session, url } from './http';

export type ToolCall = ToolCallDto;
export type Conversation = ConversationDto;
export type Message = MessageDto;
export type ChatReply = ChatResponseDto;
/** A failed turn as the person is told it: the friendly sentence and its category (the answer's `error`, the stream's error event). */
export type ChatError = ChatErrorDto;
/** What a "yes" runs, as the server stored it: the console's question card is drawn from this alone. */
export type PendingConfirmation = PendingConfirmationDto;

/** The events of POST /api/:userId/chat/stream (its description in the API document). */
export type ChatEvent =
  | { event: 'tool_call'; data: Pick<ToolCall, 'tool' | 'arguments'> }
  | { event: 'tool_result'; data: ToolCall }
  | { event: 'delta'; data: { text: string } }
  | { event: 'replace'; data: { text: string } }
  | { event: 'confirmation_required'; data: { prompt: string; pendingConfirmation: PendingConfirmation } }
  | { event: 'error'; data: ChatError }
  | { event: 'done'; data: ChatReply };

/** The most recently active conversations first; pass `nextCursor` back for older ones. */
export async function listConversations(session: Session, cursor: string | null): Promise<ConversationPageDto> {
  const path = url<ListConversationsData>('/api/{userId}/conversations', {
    path: { userId: session.userId },
    query: { limit: 20, cursor: cursor ?? undefined },
  });
  return json<ListConversationsResponse>('GET', path, session);
}

/** The newest messages of a conversation, oldest first, and the question it still waits on. */
export async function listMessages(
  session: Session,
  conversationId: string,
): Promise<{ messages: Message[]; pendingConfirmation: PendingConfirmation | null }> {
  const path = url<ListMessagesData>('/api/{userId}/conversations/{conversationId}/messages', {
    path: { userId: session.userId, conversationId },
    query: { limit: 50 },
  });
  const page = await json<ListMessagesResponse>('GET', path, session);
  return { messages: page.items, pendingConfirmation: page.pendingConfirmation };
}

/** What became of a question a conversation asked (a link's `confirmation=<id>`): open, answered, set aside or expired, in a sentence. */
export type ConfirmationState = ConfirmationStateDto;

export async function getConfirmation(session: Session, conversationId: string, confirmationId: string): Promise<ConfirmationState> {
  const path = url<GetConfirmationData>('/api/{userId}/conversations/{conversationId}/confirmations/{confirmationId}', {
    path: { userId: session.userId, conversationId, confirmationId },
  });
  return json<GetConfirmationResponse>('GET', path, session);
}

/**
 * Runs one chat turn over Server-Sent Events, calling `onEvent` as each event arrives.
 * `confirmationId` makes a "yes" or "no" answer that pending confirmation and no other.
 * Aborting `signal` stops reading; the server still finishes and stores the turn.
 */
export async function streamChat(
  session: Session,
  message: string,
  conversationId: string | undefined,
  onEvent: (event: ChatEvent) => void,
  signal?: AbortSignal,
  confirmationId?: string,
): Promise<void> {
  const body: StreamChatMessageData['body'] = { message, conversationId, ...(confirmationId && { confirmationId }) };
  const path = url<StreamChatMessageData>('/api/{userId}/chat/stream', { path: { userId: session.userId } });
  const res = await send('POST', path, session, body, 'application/json', signal);
  await readEvents(res, {
    onEvent: (message) => onEvent({ event: message.event ?? 'message', data: JSON.parse(message.data) as unknown } as ChatEvent),
  });
}
