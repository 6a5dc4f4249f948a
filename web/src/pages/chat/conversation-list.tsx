import { useState } from 'preact/hooks';
import { timeAgo } from '../../lib/time';
import { conversations, olderCursor, refreshConversations } from '../../state/conversations';
import { currentSession, now } from '../../state/session';
import { Button } from '../../ui';

interface Props {
  id: string;
  class?: string;
  selected: string | undefined;
  busy: boolean;
  onOpen: (id: string | undefined) => void;
}

export function ConversationList({ id, class: extra, selected, busy, onOpen }: Props) {
  const session = currentSession();
  const [loadingOlder, setLoadingOlder] = useState(false);
  // Relative times move on with the clock.
  void now.value;
  return (
    <aside id={id} class={['conversations', extra].filter(Boolean).join(' ')} aria-labelledby="conversations-title">
      <div class="spread">
        <h2 id="conversations-title">Conversations</h2>
        <Button variant="secondary" size="sm" onClick={() => onOpen(undefined)} disabled={busy}>
          New chat
        </Button>
      </div>
      {conversations.value.length === 0 ? (
        <p class="muted small">Your conversations will be listed here.</p>
      ) : (
        <ul class="plain conversation-list">
          {conversations.value.map((conversation) => (
            <li key={conversation.id}>
              <button
                type="button"
                class="conversation"
                aria-current={conversation.id === selected ? 'true' : undefined}
                title={conversation.title}
                disabled={busy}
                onClick={() => onOpen(conversation.id)}
              >
                <span class="conversation-title">{conversation.title}</span>
                <time class="conversation-time" dateTime={conversation.updatedAt}>
                  {timeAgo(conversation.updatedAt)}
                </time>
              </button>
            </li>
          ))}
        </ul>
      )}
      {olderCursor.value && (
        <Button
          variant="ghost"
          size="sm"
          busy={loadingOlder}
          onClick={() => {
            setLoadingOlder(true);
            void refreshConversations(session, false).finally(() => setLoadingOlder(false));
          }}
        >
          Show older conversations
        </Button>
      )}
    </aside>
  );
}
