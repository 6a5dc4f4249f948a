import { useEffect, useRef } from 'preact/hooks';
import type { PendingConfirmation } from '../../api';
import { plural } from '../../lib/labels';
import { Markdown } from '../../lib/markdown';
import { timeAgo } from '../../lib/time';
import { now } from '../../state/session';
import { Button } from '../../ui';
import type { ChatItem } from './chat-items';
import { RunningTool, ToolCard } from './tool-card';

export interface BubbleProps {
  item: ChatItem;
  last: boolean;
  /** The id of the question a link named, while it is open. */
  linked: string | null;
  running: boolean;
  /** `confirmationId`: the pending confirmation a "yes" or "no" from its card answers. */
  onSend: (text: string, confirmationId?: string) => void;
}

/** One message of the conversation: the person's words, or an answer with its tool cards and its question. */
export function Bubble({ item, last, linked, running, onSend }: BubbleProps) {
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
