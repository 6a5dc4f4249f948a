import type { Task, TaskDraft, TaskStatusFilter } from '../../../domain/todo/task';

export abstract class TaskRepository {
  /** Stores the draft under the user's next task number; numbers never repeat, even under races. */
  abstract add(userId: string, draft: TaskDraft, now: Date): Promise<Task>;
  /** The user's tasks in number order. */
  abstract list(userId: string, status: TaskStatusFilter): Promise<Task[]>;
  abstract findByNumber(userId: string, taskNumber: number): Promise<Task | null>;
  abstract save(task: Task): Promise<void>;
  /** @returns the removed task, or null when the user has no such task. */
  abstract remove(userId: string, taskNumber: number): Promise<Task | null>;
}
