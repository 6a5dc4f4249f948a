import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { PendingConfirmation, ToolCall } from '../../api';
import { plural } from '../../lib/labels';
import { Markdown } from '../../lib/markdown';
import { timeAgo } from '../../lib/time';
import { now } from '../../state/session';
import { Alert, Button } from '../../ui';
import { RunningTool, ToolCard } from './tool-card';

/** One bubble of the conversation as the console shows it. */
export interface ChatItem {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  /** Tools called and not yet answered. */
  readonly running: readonly string[];
  /** What the answer asks the person to say yes to, as the server stored it (only ever on the last one). */
  readonly confirmation: PendingConfirmation | null;
  readonly streaming: boolean;
  readonly failed: boolean;
  readonly stopped?: boolean;
  readonly warning?: string | null;
}

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

interface BubbleProps {
  item: ChatItem;
  last: boolean;
  /** The id of the question a link named, while it is open. */
  linked: string | null;
  running: boolean;
  onSend: Props['onSend'];
}

function Bubble({ item, last, linked, running, onSend }: BubbleProps) {
  if (item.role === 'user') {
    return (
      <div class="message user">
        <p class="visually-hidden">You said:</p>
        <div class="bubble">
          <p>{item.text}</p>
        </div>
      </div>
    );
  }
  const waiting = item.streaming && item.text === '' && item.running.length === 0;
  // An answer that asks before a delete or a bulk change is asked once, by the card drawn from
  // what the server stored: the model's own wording of the question is not shown beside it.
  const asks = !item.failed && (item.confirmation !== null || item.toolCalls.some((call) => call.error?.code === 'CONFIRMATION_REQUIRED'));
  return (
    <div class="message assistant" aria-busy={item.streaming || undefined}>
      <p class="visually-hidden">Assistant:</p>
      {item.toolCalls.map((call, i) => (
        <ToolCard key={i} call={call} />
      ))}
      {item.running.map((_, i) => (
        <RunningTool key={`r${i}`} />
      ))}
      {waiting && (
        <p class="typing" aria-label="The assistant is thinking">
          <span />
          <span />
          <span />
        </p>
      )}
      {item.text && !asks && (
        <Markdown
          class={`bubble answer${item.failed ? ' failed' : ''}${item.streaming ? ' streaming' : ''}`}
          role={item.failed ? 'alert' : undefined}
          text={item.text}
        />
      )}
      {item.stopped && (
        <p class="note">Stopped. The assistant may still finish this turn; it will show when you open the conversation again.</p>
      )}
      {item.warning && <p class="note warning">{item.warning}</p>}
      {item.confirmation && last && (
        <Confirmation action={item.confirmation} linked={item.confirmation.id === linked} disabled={running} onAnswer={onSend} />
      )}
    </div>
  );
}

/** How a card words what "yes" runs (a deletion, a big change, or a turn a rule asks about); every figure in it comes from the stored action. */
function wording(action: PendingConfirmation) {
  if (action.tool === 'chat_turn') {
    return { title: 'Go on?', yes: 'Yes, go on', note: 'Nothing is sent to the assistant until you say yes.', danger: false };
  }
  if (action.tool === 'delete_task') {
    const tasks = plural(action.count, 'task');
    return {
      title: `Delete ${tasks}?`,
      yes: `Yes, delete ${tasks}`,
      note: 'Nothing is deleted until you say yes. This cannot be undone.',
      danger: true,
    };
  }
  const changes = plural(action.count, 'change');
  return { title: `Make ${changes}?`, yes: `Yes, make ${changes}`, note: 'Nothing changes until you say yes.', danger: false };
}

/**
 * The question before a delete (or a big change) as a card, drawn only from what the server
 * stored: how many things "yes" acts on and which, as text. The assistant's own words asking
 * it are not shown (Bubble): they are never the card's title nor a button, and the person is
 * asked once. "Yes" and "Cancel" answer this stored action by its id, so they run it exactly,
 * or nothing once it is no longer open.
 */
function Confirmation({
  action,
  linked,
  disabled,
  onAnswer,
}: {
  action: PendingConfirmation;
  /** The question a link named: marked, in view and focused (never its buttons: following a link answers nothing). */
  linked: boolean;
  disabled: boolean;
  onAnswer: (text: string, confirmationId: string) => void;
}) {
  const card = useRef<HTMLDivElement>(null);
  const words = wording(action);
  const more = action.count - action.items.length;
  const expired = Date.parse(action.expiresAt) <= now.value;
  useEffect(() => {
    if (!linked) return;
    card.current?.scrollIntoView({ block: 'center' });
    card.current?.focus({ preventScroll: true });
  }, [linked]);
  return (
    <div
      ref={card}
      class={linked ? 'confirm-card is-linked' : 'confirm-card'}
      role="group"
      aria-labelledby="confirm-title"
      tabIndex={linked ? -1 : undefined}
      data-confirmation={action.id}
    >
      <p id="confirm-title" class="confirm-title">
        {words.title}
      </p>
      <ul class="confirm-items" aria-label={words.title.replace(/\?$/, '')}>
        {action.items.map((item, i) => (
          <li key={i}>{item}</li>
        ))}
        {more > 0 && <li class="muted">{`and ${more} more`}</li>}
      </ul>
      <p class="muted small">
        {expired
          ? 'This question expired unanswered, so nothing was changed: ask again if you still want it.'
          : `${words.note} The question expires ${timeAgo(action.expiresAt, now.value)}.`}
      </p>
      <div class="row">
        <Button variant={words.danger ? 'danger' : 'primary'} disabled={disabled || expired} onClick={() => onAnswer('yes', action.id)}>
          {words.yes}
        </Button>
        <Button variant="secondary" disabled={disabled} onClick={() => onAnswer('no', action.id)}>
          Cancel
        </Button>
      </div>
    </div>
  );
}

/**
 * How far below what the person sees the newest message ends, in pixels (negative: in view).
 * The thread scrolls in its own box on a wide screen; on a phone it is as tall as its messages
 * and the page scrolls, under a header and above a composer that both stay on screen.
 */
function distanceToEnd(thread: HTMLElement, composer: HTMLElement): number {
  const inBox = thread.scrollHeight - thread.scrollTop - thread.clientHeight;
  const last = thread.lastElementChild;
  const onPage = last ? last.getBoundingClientRect().bottom - visibleBottom(composer) : 0;
  return Math.max(inBox, onPage);
}

const visibleBottom = (composer: HTMLElement) => Math.min(window.innerHeight, composer.getBoundingClientRect().top);

/** Scrolls the thread's box, then the page, so that the newest message ends just above the composer. */
function revealEnd(thread: HTMLElement, composer: HTMLElement): void {
  thread.scrollTop = thread.scrollHeight;
  const last = thread.lastElementChild;
  if (!last) return;
  const below = last.getBoundingClientRect().bottom + 8 - visibleBottom(composer);
  if (below > 0) window.scrollBy({ top: below, behavior: 'instant' });
}
