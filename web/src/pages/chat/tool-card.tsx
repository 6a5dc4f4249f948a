import type { ToolCall } from '../../api';
import { plural } from '../../lib/labels';
import { Badge, type Tone } from '../../ui';

interface TaskLike {
  readonly title?: unknown;
}

const titleOf = (task: unknown): string => {
  const title = (task as TaskLike | null)?.title;
  return typeof title === 'string' ? `'${title}'` : 'the task';
};

/** "Add a task" → "add a task": a title inside a sentence. */
const inSentence = (title: string): string => title.charAt(0).toLowerCase() + title.slice(1);

/**
 * What a tool call did, in a sentence a person reads ("Added 'Buy milk'"), and its tone: read
 * from its result's shape (a task, tasks deleted, a list), else said with the tool's title.
 */
export function describeToolCall(call: ToolCall): { text: string; tone: Tone; status: string } {
  const result = (call.result ?? {}) as Record<string, unknown>;
  if (call.error?.code === 'CONFIRMATION_REQUIRED') {
    return { text: 'Asked you before deleting', tone: 'accent', status: 'Waiting for you' };
  }
  if (!call.success) {
    return { text: `Could not ${inSentence(call.title)}: ${call.error?.message ?? 'it failed'}`, tone: 'danger', status: 'Failed' };
  }
  const done = (text: string, tone: Tone = 'success') => ({ text, tone, status: 'Done' });
  if (Array.isArray(result.deleted)) {
    const deleted = result.deleted as unknown[];
    return done(deleted.length === 1 ? `Deleted ${titleOf(deleted[0])}` : `Deleted ${plural(deleted.length, 'task')}`);
  }
  if (typeof result.count === 'number' && Array.isArray(result.tasks)) {
    const which = result.status === 'pending' ? 'pending ' : result.status === 'completed' ? 'completed ' : '';
    return done(`Read your ${which}tasks (${plural(result.count, 'task')})`, 'neutral');
  }
  if (result.task !== undefined) {
    const task = titleOf(result.task);
    if (result.alreadyCompleted === true) return done(`${task} was already done`, 'neutral');
    if (result.alreadyCompleted === false) return done(`Completed ${task}`);
    if (Array.isArray(result.changed)) return done(`Updated ${task}`);
    // A result that is the task alone is a task added.
    if (Object.keys(result).length === 1) return done(`Added ${task}`);
    return done(`${call.title}: ${task}`);
  }
  return done(call.title, 'neutral');
}

const pretty = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

/** A tool call as a card: the sentence first, the tool, arguments and result on demand. */
export function ToolCard({ call }: { call: ToolCall }) {
  const { text, tone, status } = describeToolCall(call);
  return (
    <details class={`tool-card tone-${tone}`}>
      <summary>
        <span class="tool-card-text">{text}</span>
        <Badge tone={tone}>{status}</Badge>
      </summary>
      <dl class="facts">
        <dt>Tool</dt>
        <dd class="mono">{call.tool}</dd>
        <dt>Took</dt>
        <dd>{call.durationMs} ms</dd>
      </dl>
      <p class="tool-card-label">Arguments</p>
      <pre>{pretty(call.arguments)}</pre>
      <p class="tool-card-label">{call.success ? 'Result' : 'Error'}</p>
      <pre>{pretty(call.success ? (call.result ?? null) : call.error)}</pre>
    </details>
  );
}

/** A tool call still running (its card, with the tool's title, comes with its result). */
export function RunningTool() {
  return (
    <p class="tool-card running">
      <span class="spinner" aria-hidden="true" />
      Working…
    </p>
  );
}
