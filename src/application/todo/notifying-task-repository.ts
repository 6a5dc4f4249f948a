import type { ShownTask } from '../../domain/todo/deletion';
import type { UnitOfWork } from '../shared/ports/unit-of-work.port';
import type { Task, TaskDraft, TaskStatusFilter } from '../../domain/todo/task';
import type { TaskChanges } from './ports/task-changes.port';
import { TaskRepository } from './ports/task-repository.port';

/**
 * The task store, announcing every write that changed something: whichever way a task
 * changes (the REST API, the chat's tools, an MCP client), the announcement is made once,
 * here, after the write has committed (a tool's write commits with its audit row).
 */
export class NotifyingTaskRepository extends TaskRepository {
  constructor(
    private readonly store: TaskRepository,
    private readonly changes: TaskChanges,
    private readonly unitOfWork: UnitOfWork,
  ) {
    super();
  }

  async add(userId: string, draft: TaskDraft, now: Date, maxTasks: number): Promise<Task | null> {
    return this.announced(userId, await this.store.add(userId, draft, now, maxTasks), (task) => task !== null);
  }

  list(userId: string, status: TaskStatusFilter): Promise<Task[]> {
    return this.store.list(userId, status);
  }

  findByNumber(userId: string, taskNumber: number): Promise<Task | null> {
    return this.store.findByNumber(userId, taskNumber);
  }

  async replace(read: Task, updated: Task): Promise<boolean> {
    return this.announced(read.userId, await this.store.replace(read, updated), (replaced) => replaced);
  }

  async remove(userId: string, taskNumber: number): Promise<Task | null> {
    return this.announced(userId, await this.store.remove(userId, taskNumber), (task) => task !== null);
  }

  async removeAsShown(userId: string, shown: readonly ShownTask[]) {
    return this.announced(userId, await this.store.removeAsShown(userId, shown), (outcome) => outcome.removed);
  }

  private announced<T>(userId: string, outcome: T, changed: (outcome: T) => boolean): T {
    if (changed(outcome)) this.unitOfWork.afterCommit(() => this.changes.publish(userId));
    return outcome;
  }
}
