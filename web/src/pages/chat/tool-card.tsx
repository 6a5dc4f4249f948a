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

const VERBS: Record<string, string> = {
  add_task: 'add the task',
  list_tasks: 'read your list',
  complete_task: 'complete the task',
  update_task: 'update the task',
  delete_task: 'delete',
};

/** What a tool call did, in a sentence a person reads ("Added 'Buy milk'"), and its tone. */
export function describeToolCall(call: ToolCall): { text: string; tone: Tone; status: string } {
  const result = (call.result ?? {}) as Record<string, unknown>;
  if (call.error?.code === 'CONFIRMATION_REQUIRED') {
    return { text: 'Asked you before deleting', tone: 'accent', status: 'Waiting for you' };
  }
  if (!call.success) {
    return { text: `Could not ${VERBS[call.tool] ?? call.tool}: ${call.error?.message ?? 'it failed'}`, tone: 'danger', status: 'Failed' };
  }
  switch (call.tool) {
    case 'add_task':
      return { text: `Added ${titleOf(result.task)}`, tone: 'success', status: 'Done' };
    case 'list_tasks': {
      const count = typeof result.count === 'number' ? result.count : 0;
      const which = result.status === 'pending' ? 'pending ' : result.status === 'completed' ? 'completed ' : '';
      return { text: `Read your ${which}tasks (${plural(count, 'task')})`, tone: 'neutral', status: 'Done' };
    }
    case 'complete_task':
      return result.alreadyCompleted
        ? { text: `${titleOf(result.task)} was already done`, tone: 'neutral', status: 'Done' }
        : { text: `Completed ${titleOf(result.task)}`, tone: 'success', status: 'Done' };
    case 'update_task':
      return { text: `Updated ${titleOf(result.task)}`, tone: 'success', status: 'Done' };
    case 'delete_task': {
      const deleted = Array.isArray(result.deleted) ? (result.deleted as unknown[]) : [];
      return {
        text: deleted.length === 1 ? `Deleted ${titleOf(deleted[0])}` : `Deleted ${plural(deleted.length, 'task')}`,
        tone: 'success',
        status: 'Done',
      };
    }
    default:
      return { text: `Ran ${call.tool}`, tone: 'neutral', status: 'Done' };
  }
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

/** A tool call still running. */
export function RunningTool({ tool }: { tool: string }) {
  return (
    <p class="tool-card running">
      <span class="spinner" aria-hidden="true" />
      Working: {VERBS[tool] ?? tool}…
    </p>
  );
}
