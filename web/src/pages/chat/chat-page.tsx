import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type ChatEvent, getConfirmation, listMessages, streamChat } from '../../api';
import { failureText } from '../../lib/use-resource';
import { refreshConversations } from '../../state/conversations';
import { routeId } from '../../state/route';
import { currentSession } from '../../state/session';
import { refreshTasks } from '../../state/tasks';
import { Button } from '../../ui';
import { ConversationList } from './conversation-list';
import { type ChatItem, fromHistory, turn, withEvent } from './chat-items';
import { ChatThread } from './chat-thread';
import { TaskPanel } from './task-panel';
import './chat.css';

/** The chat page: conversations, the open conversation and the task list side by side. */
export function ChatPage() {
  const session = currentSession();
  const [conversationId, setConversationId] = useState<string | undefined>(undefined);
  const [items, setItems] = useState<ChatItem[]>([]);
  const [loadError, setLoadError] = useState<string | null>(null);
  /** A link's question (`confirmation=<id>`): still open, its card is marked; otherwise what became of it. */
  const [linkedQuestion, setLinkedQuestion] = useState<{ id: string; open: boolean; message: string | null } | null>(null);
  const [running, setRunning] = useState<AbortController | null>(null);
  const [showConversations, setShowConversations] = useState(false);
  const opened = useRef(0);

  useEffect(() => {
    void refreshTasks(session);
    void refreshConversations(session);
    // Back from another tab or app (an MCP client may have changed the list meanwhile).
    const onVisible = () => {
      if (document.visibilityState === 'visible') void refreshTasks(session);
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => document.removeEventListener('visibilitychange', onVisible);
  }, [session]);

  // A link to a conversation (`#chat?conversation=<id>&confirmation=<id>`), e.g. the one an MCP
  // client that could not ask the person gave them, or a notification's: the question waits there,
  // its card in view; answered, set aside or expired, the page says so. Opening it answers nothing.
  const linked = routeId('conversation');
  const linkedConfirmation = routeId('confirmation');
  useEffect(() => {
    if (linked) void open(linked, linkedConfirmation);
  }, [linked, linkedConfirmation]);

  /** Changes the last assistant item (the one being answered). */
  const updateLast = (change: (item: ChatItem) => ChatItem) =>
    setItems((current) => current.map((item, index) => (index === current.length - 1 ? change(item) : item)));

  async function open(id: string | undefined, question: string | null = null) {
    if (running) return;
    const mine = ++opened.current;
    setConversationId(id);
    setItems([]);
    setLoadError(null);
    setLinkedQuestion(null);
    setShowConversations(false);
    if (!id) return;
    try {
      const { messages, pendingConfirmation } = await listMessages(session, id);
      if (mine !== opened.current) return;
      setItems(fromHistory(messages, pendingConfirmation));
      if (question === null) return;
      if (pendingConfirmation?.id === question) return setLinkedQuestion({ id: question, open: true, message: null });
      const state = await getConfirmation(session, id, question).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      });
      if (mine === opened.current) {
        setLinkedQuestion({ id: question, open: false, message: state?.message ?? 'That question was not found in this conversation.' });
      }
    } catch (error) {
      if (mine === opened.current) setLoadError(failureText(error));
    }
  }

  /** `confirmationId`: the pending confirmation this "yes" or "no" answers (from its card). */
  async function send(message: string, confirmationId?: string) {
    if (running || message.trim() === '') return;
    const controller = new AbortController();
    setRunning(controller);
    setLinkedQuestion(null);
    setItems((current) => [...current.map((item) => ({ ...item, confirmation: null })), ...turn(message)]);
    const onEvent = (event: ChatEvent) => {
      updateLast((item) => withEvent(item, event));
      // A tool that changes tasks: the panel reloads as soon as one reports.
      if (event.event === 'tool_result' && event.data.success && event.data.changesTasks) void refreshTasks(session);
      if (event.event === 'done') setConversationId(event.data.conversationId);
    };
    try {
      await streamChat(session, message, conversationId, onEvent, controller.signal, confirmationId);
    } catch (error) {
      if (controller.signal.aborted) {
        updateLast((item) => ({ ...item, stopped: true }));
      } else {
        const text = failureText(error);
        if (text !== null) updateLast((item) => ({ ...item, failed: true, text }));
      }
    } finally {
      updateLast((item) => ({ ...item, streaming: false, running: [] }));
      setRunning(null);
    }
    await Promise.all([refreshTasks(session), refreshConversations(session)]);
  }

  return (
    <div class="chat-layout">
      <div class="chat-mobile-bar">
        <Button
          variant="secondary"
          size="sm"
          aria-expanded={showConversations}
          aria-controls="conversations-panel"
          onClick={() => setShowConversations(!showConversations)}
        >
          Conversations
        </Button>
        <Button variant="ghost" size="sm" onClick={() => void open(undefined)} disabled={!!running}>
          New chat
        </Button>
      </div>
      <ConversationList
        id="conversations-panel"
        class={showConversations ? 'is-open' : undefined}
        selected={conversationId}
        onOpen={(id) => void open(id)}
        busy={!!running}
      />
      <ChatThread
        items={items}
        error={loadError}
        linkedQuestion={linkedQuestion}
        running={!!running}
        onSend={(text, confirmationId) => void send(text, confirmationId)}
        onStop={() => running?.abort()}
      />
      <TaskPanel />
    </div>
  );
}
