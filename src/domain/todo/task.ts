import { DomainError, DomainValidationError } from '../shared/domain-error';
import { cleanText, labelProblem } from '../shared/untrusted-text-normalisation';

export const TASK_PRIORITIES = ['low', 'medium', 'high'] as const;
export type TaskPriority = (typeof TASK_PRIORITIES)[number];

export const TASK_STATUS_FILTERS = ['all', 'pending', 'completed'] as const;
export type TaskStatusFilter = (typeof TASK_STATUS_FILTERS)[number];

export const TITLE_MAX_LENGTH = 200;
export const DESCRIPTION_MAX_LENGTH = 2000;
/** Tasks one person keeps at once (deleting makes room; completed ones count). */
export const TASKS_PER_USER_MAX = 1000;
/** Task numbers are stored as PostgreSQL `integer`. */
export const TASK_NUMBER_MAX = 2_147_483_647;

export interface Task {
  readonly id: string;
  readonly userId: string;
  /** Per-user display number (1, 2, 3…) that people can say out loud; never reused. */
  readonly number: number;
  readonly title: string;
  readonly description: string | null;
  readonly priority: TaskPriority;
  readonly completed: boolean;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly completedAt: Date | null;
}

/** A validated task that has no identity yet. */
export interface TaskDraft {
  readonly title: string;
  readonly description: string | null;
  readonly priority: TaskPriority;
}

export interface TaskChanges {
  readonly title?: string;
  readonly description?: string | null;
  readonly priority?: TaskPriority;
  readonly completed?: boolean;
}

export class InvalidTaskError extends DomainValidationError {
  readonly code = 'TODO.INVALID_TASK';
}

export class TaskNotFoundError extends DomainError {
  readonly code = 'TODO.TASK_NOT_FOUND';
  readonly kind = 'not_found' as const;
  constructor(readonly taskNumber: number) {
    super(`Task ${taskNumber} was not found`);
  }
}

export class TaskLimitReachedError extends DomainError {
  readonly code = 'TODO.TASK_LIMIT_REACHED';
  readonly kind = 'conflict' as const;
  constructor(readonly limit: number) {
    super(`You already have ${limit} tasks, the most one list can hold; delete some to make room`);
  }
}

/** The task kept changing under a write, attempt after attempt; nothing was changed by this one. */
export class TaskBusyError extends DomainError {
  readonly code = 'TODO.TASK_BUSY';
  readonly kind = 'conflict' as const;
  constructor(readonly taskNumber: number) {
    super(`Task ${taskNumber} is being changed by another request right now; try again`);
  }
}

export function draftTask(input: { title: string; description?: string | null; priority?: TaskPriority }): TaskDraft {
  return {
    title: validTitle(input.title),
    description: validDescription(input.description ?? null),
    priority: validPriority(input.priority ?? 'medium'),
  };
}

/** Returns the task with `changes` applied; `completedAt` follows `completed`. */
export function changeTask(task: Task, changes: TaskChanges, now: Date): Task {
  const completed = changes.completed ?? task.completed;
  return {
    ...task,
    title: changes.title === undefined ? task.title : validTitle(changes.title),
    description: changes.description === undefined ? task.description : validDescription(changes.description),
    priority: changes.priority === undefined ? task.priority : validPriority(changes.priority),
    completed,
    completedAt: completed ? (task.completedAt ?? now) : null,
    updatedAt: now,
  };
}

/**
 * A title is one line a person (or the assistant, for them) writes and reads back in lists
 * and confirmations ("delete 'Buy milk'?"): cleaned (cleanText: no control, bidi or invisible
 * character, so that it shows in the order it is stored, and as it reads), and a line break
 * or a tab left in it is refused.
 */
function validTitle(raw: string): string {
  const title = cleanText(raw).trim();
  if (title.length === 0 || title.length > TITLE_MAX_LENGTH) {
    throw new InvalidTaskError('title', `title must be 1 to ${TITLE_MAX_LENGTH} characters long`);
  }
  const problem = labelProblem(title);
  if (problem) throw new InvalidTaskError('title', `title ${problem}`);
  return title;
}

function validDescription(raw: string | null): string | null {
  if (raw === null) return null;
  const description = cleanText(raw).trim();
  if (description.length > DESCRIPTION_MAX_LENGTH) {
    throw new InvalidTaskError('description', `description must be at most ${DESCRIPTION_MAX_LENGTH} characters long`);
  }
  return description.length === 0 ? null : description;
}

function validPriority(raw: string): TaskPriority {
  if (!(TASK_PRIORITIES as readonly string[]).includes(raw)) {
    throw new InvalidTaskError('priority', `priority must be one of ${TASK_PRIORITIES.join(', ')}`);
  }
  return raw as TaskPriority;
}
