import type { ShownTask } from '../../../domain/todo/deletion';
import type { Task, TaskDraft, TaskStatusFilter } from '../../../domain/todo/task';

export abstract class TaskRepository {
  /**
   * Stores the draft under the user's next task number; numbers never repeat, even under races.
   * @returns null, storing nothing, when the user already has `maxTasks` tasks (exactly, even
   * when adds race).
   */
  abstract add(userId: string, draft: TaskDraft, now: Date, maxTasks: number): Promise<Task | null>;
  /** The user's tasks in number order. */
  abstract list(userId: string, status: TaskStatusFilter): Promise<Task[]>;
  abstract findByNumber(userId: string, taskNumber: number): Promise<Task | null>;
  /**
   * Stores `updated` only if the stored task still holds exactly what `read` holds (compare and set).
   * @returns false when the task changed or went away since it was read; nothing is written then.
   */
  abstract replace(read: Task, updated: Task): Promise<boolean>;
  /** @returns the removed task, or null when the user has no such task. */
  abstract remove(userId: string, taskNumber: number): Promise<Task | null>;
  /**
   * Removes every one of `shown` or none, atomically: only while each number still holds the
   * title shown. @returns the removed tasks, or (nothing removed) what those numbers hold now.
   */
  abstract removeAsShown(
    userId: string,
    shown: readonly ShownTask[],
  ): Promise<{ readonly removed: true; readonly tasks: Task[] } | { readonly removed: false; readonly current: Task[] }>;
}
