import { type Task, TaskBusyError, TaskNotFoundError } from '../../domain/todo/task';
import type { TaskRepository } from './ports/task-repository.port';
import type { TaskRef } from './task-ref';

/** Enough for every writer of a burst on one task to land: each round, at least one of them does. */
const ATTEMPTS = 10;

/**
 * Reads the task, applies `edit` and stores the result only if nobody changed the task in
 * between; otherwise reads it again and re-applies `edit`, so two concurrent edits of
 * different fields both land instead of the last one silently undoing the first.
 * `edit` returning the task it was given means "nothing to change" and writes nothing.
 * @throws TaskNotFoundError when the task is not there (or went away meanwhile).
 * @throws TaskBusyError when it kept changing for every attempt.
 */
export async function editTask(
  tasks: TaskRepository,
  ref: TaskRef,
  edit: (task: Task) => Task,
): Promise<{ readonly before: Task; readonly after: Task }> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const before = await tasks.findByNumber(ref.userId, ref.number);
    if (!before) throw new TaskNotFoundError(ref.number);
    const after = edit(before);
    if (after === before || (await tasks.replace(before, after))) return { before, after };
  }
  throw new TaskBusyError(ref.number);
}
