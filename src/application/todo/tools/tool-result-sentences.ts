import { joinedWithAnd } from '../../../domain/shared/words';
import type { TaskView } from './todo-tool-definitions';

/** Titles a list sentence names; the rest are counted. */
const LISTED_TITLES_MAX = 5;

/**
 * What a todo tool's successful result says, in one sentence of the server's own (the
 * results' shapes are documented with TODO_TOOLS): said instead of a model's reply that
 * failed the reply check (reply-check.ts). Null when the result does not say enough.
 */
export function toolResultSentence(call: { readonly tool: string; readonly result?: unknown }): string | null {
  const result = fields(call.result);
  const task = taskView(result.task);
  switch (call.tool) {
    case 'add_task':
      return task && `Added '${task.title}' to your list.`;
    case 'complete_task':
      if (!task) return null;
      return result.alreadyCompleted === true ? `'${task.title}' was already complete.` : `Marked '${task.title}' as complete.`;
    case 'update_task':
      return task && `Updated task ${task.number}, '${task.title}'.`;
    case 'delete_task': {
      const deleted = taskViews(result.deleted);
      if (deleted.length === 1) return `Deleted '${deleted[0].title}'.`;
      return deleted.length > 1 ? `Deleted ${deleted.length} tasks.` : null;
    }
    case 'list_tasks':
      return listed(result);
    default:
      return null;
  }
}

function listed(result: Readonly<Record<string, unknown>>): string | null {
  if (typeof result.count !== 'number') return null;
  const which = result.status === 'pending' ? 'pending ' : result.status === 'completed' ? 'completed ' : '';
  if (result.count === 0) return `You have no ${which}tasks.`;
  const titles = taskViews(result.tasks).map((task) => `'${task.title}'`);
  const named =
    titles.length > LISTED_TITLES_MAX ? [...titles.slice(0, LISTED_TITLES_MAX), `${result.count - LISTED_TITLES_MAX} more`] : titles;
  const noun = result.count === 1 ? 'task' : 'tasks';
  return named.length === 0
    ? `You have ${result.count} ${which}${noun}.`
    : `You have ${result.count} ${which}${noun}: ${joinedWithAnd(named)}.`;
}

function fields(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function taskView(value: unknown): Pick<TaskView, 'number' | 'title'> | null {
  const task = fields(value);
  return typeof task.number === 'number' && typeof task.title === 'string' ? { number: task.number, title: task.title } : null;
}

function taskViews(value: unknown): Pick<TaskView, 'number' | 'title'>[] {
  return Array.isArray(value) ? value.flatMap((item) => taskView(item) ?? []) : [];
}
