import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Alert, Button } from '../../ui';
import { Bubble } from './bubble';
import type { ChatItem } from './chat-items';
import { distanceToEnd, revealEnd } from './follow-end';

/** What an empty conversation offers to type: each one works with the offline model too. */
export const EXAMPLE_PROMPTS = [
  'Add buy milk with high priority',
  "What's on my list?",
  'Remind me to call mum',
  'What can you do?',
] as const;

interface Props {
  items: readonly ChatItem[];
  error: string | null;
  /** The question a link named: its card is marked and focused while it is open; otherwise what became of it is said. */
  linkedQuestion?: { readonly id: string; readonly open: boolean; readonly message: string | null } | null;
  running: boolean;
  /** `confirmationId`: the pending confirmation a "yes" or "no" from its card answers. */
  onSend: (text: string, confirmationId?: string) => void;
  onStop: () => void;
}

export function ChatThread({ items, error, linkedQuestion = null, running, onSend, onStop }: Props) {
  const log = useRef<HTMLDivElement>(null);
  const composer = useRef<HTMLFormElement>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  const [draft, setDraft] = useState('');
  /** Whether the newest message was in view when the person last scrolled: only then does the view follow the answer. */
  const following = useRef(true);

  useEffect(() => {
    const thread = log.current!;
    const onScroll = () => (following.current = distanceToEnd(thread, composer.current!) < 80);
    thread.addEventListener('scroll', onScroll, { passive: true });
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      thread.removeEventListener('scroll', onScroll);
      window.removeEventListener('scroll', onScroll);
    };
  }, []);

  // Keep the newest message (and a question's card) in view as it comes and grows, unless the
  // person scrolled up to read: a new conversation, or a message they send, follows again.
  useLayoutEffect(() => {
    if (items.length === 0) following.current = true;
    else if (following.current) revealEnd(log.current!, composer.current!);
  }, [items]);

  const send: Props['onSend'] = (text, confirmationId) => {
    following.current = true;
    onSend(text, confirmationId);
  };

  useEffect(() => {
    if (!running) input.current?.focus();
  }, [running]);

  const submit = () => {
    if (running || draft.trim() === '') return;
    send(draft);
    setDraft('');
  };

  return (
    <section class="chat" aria-labelledby="chat-title">
      <h1 id="chat-title" class="visually-hidden">
        Chat
      </h1>
      <div ref={log} class="thread" role="log" aria-live="polite" aria-label="Conversation">
        <Alert message={error} />
        {linkedQuestion && !linkedQuestion.open && (
          <p class="notice linked-question" role="status" data-confirmation={linkedQuestion.id}>
            {linkedQuestion.message}
          </p>
        )}
        {items.length === 0 && !error ? (
          <div class="welcome">
            <p class="welcome-title">What can I help you with?</p>
            <p class="muted">Manage your tasks by chatting. Deleting always asks you first.</p>
            <ul class="plain examples" aria-label="Example prompts">
              {EXAMPLE_PROMPTS.map((prompt) => (
                <li key={prompt}>
                  <button type="button" class="example" onClick={() => send(prompt)}>
                    {prompt}
                  </button>
                </li>
              ))}
            </ul>
          </div>
        ) : (
          items.map((item, index) => (
            <Bubble
              key={item.id}
              item={item}
              last={index === items.length - 1}
              linked={linkedQuestion?.open ? linkedQuestion.id : null}
              running={running}
              onSend={send}
            />
          ))
        )}
      </div>
      <form
        ref={composer}
        class="composer"
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <label for="chat-message" class="visually-hidden">
          Message
        </label>
        <textarea
          ref={input}
          id="chat-message"
          name="message"
          rows={1}
          maxLength={2000}
          placeholder="Ask about your tasks…"
          autocomplete="off"
          value={draft}
          onInput={(event) => setDraft(event.currentTarget.value)}
          onKeyDown={(event) => {
            // Enter sends; Shift+Enter starts a new line.
            if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
              event.preventDefault();
              submit();
            }
          }}
        />
        {running ? (
          <Button variant="secondary" onClick={onStop}>
            Stop
          </Button>
        ) : (
          <Button type="submit" disabled={draft.trim() === ''}>
            Send
          </Button>
        )}
      </form>
    </section>
  );
}
