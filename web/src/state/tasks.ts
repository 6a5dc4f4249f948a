import { signal } from '@preact/signals';
import { type Session, type Task, listTasks } from '../api';
import { handledAuthFailure } from './session';

/**
 * The person's tasks, one list for the whole console: the chat refreshes it when a tool
 * changes a task, the task panel when the person does, and both read it, so a change made
 * on one side shows on the other at once.
 */
export const tasks = signal<readonly Task[] | null>(null);
export const tasksError = signal<unknown>(null);

let generation = 0;

export async function refreshTasks(session: Session): Promise<void> {
  const mine = ++generation;
  try {
    const fresh = await listTasks(session);
    if (mine !== generation) return;
    tasks.value = fresh;
    tasksError.value = null;
  } catch (error) {
    if (mine === generation && !handledAuthFailure(error)) tasksError.value = error;
  }
}

/** One task replaced in place by what the API answered (no wait for the next refresh). */
export function replaceTask(task: Task): void {
  tasks.value = (tasks.value ?? []).map((t) => (t.number === task.number ? task : t));
}
