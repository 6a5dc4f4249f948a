import type { ShownTask } from '../../../domain/todo/deletion';
import type { Task } from '../../../domain/todo/task';

/** A task as every result names it: by number and title, never by internal id. */
export interface TaskView {
  readonly number: number;
  readonly title: string;
  readonly description: string | null;
  readonly priority: string;
  readonly completed: boolean;
}

export function view(task: Task): TaskView {
  return {
    number: task.number,
    title: task.title,
    description: task.description,
    priority: task.priority,
    completed: task.completed,
  };
}

export function shownTask(task: Task): ShownTask {
  return { number: task.number, title: task.title };
}

/** A tool's refusal in its own words: becomes the call's error result (code, message, details). */
export class ToolFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** A result (or anything stored as one) read field by field: what is not an object reads as none. */
export type ResultFields = Readonly<Record<string, unknown>>;

export function fields(value: unknown): ResultFields {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as ResultFields) : {};
}

/** A task a result names, by number and title; null when the value is no such task. */
export function namedTask(value: unknown): { number: number; title: string } | null {
  const task = fields(value);
  return typeof task.number === 'number' && typeof task.title === 'string' ? { number: task.number, title: task.title } : null;
}

export function namedTasks(value: unknown): { number: number; title: string }[] {
  return Array.isArray(value) ? value.flatMap((item) => namedTask(item) ?? []) : [];
}
