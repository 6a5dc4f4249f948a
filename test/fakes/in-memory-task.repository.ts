import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { TaskRepository } from '../../src/application/todo/ports/task-repository.port';
import { type ShownTask, unchangedSinceShown } from '../../src/domain/todo/deletion';
import type { Task, TaskDraft, TaskStatusFilter } from '../../src/domain/todo/task';

export class InMemoryTaskRepository extends TaskRepository {
  readonly tasks: Task[] = [];
  private readonly counters = new Map<string, number>();

  add(userId: string, draft: TaskDraft, now: Date, maxTasks: number): Promise<Task | null> {
    if (this.tasks.filter((task) => task.userId === userId).length >= maxTasks) return Promise.resolve(null);
    const number = (this.counters.get(userId) ?? 0) + 1;
    this.counters.set(userId, number);
    const task: Task = {
      ...draft,
      id: randomUUID(),
      userId,
      number,
      completed: false,
      createdAt: now,
      updatedAt: now,
      completedAt: null,
    };
    this.tasks.push(task);
    return Promise.resolve(task);
  }

  list(userId: string, status: TaskStatusFilter): Promise<Task[]> {
    return Promise.resolve(
      this.tasks
        .filter((task) => task.userId === userId)
        .filter((task) => status === 'all' || task.completed === (status === 'completed'))
        .sort((a, b) => a.number - b.number),
    );
  }

  findByNumber(userId: string, taskNumber: number): Promise<Task | null> {
    return Promise.resolve(this.tasks.find((t) => t.userId === userId && t.number === taskNumber) ?? null);
  }

  replace(read: Task, updated: Task): Promise<boolean> {
    const index = this.tasks.findIndex((t) => t.id === read.id && t.userId === read.userId);
    if (index < 0 || !isDeepStrictEqual(this.tasks[index], read)) return Promise.resolve(false);
    this.tasks[index] = updated;
    return Promise.resolve(true);
  }

  remove(userId: string, taskNumber: number): Promise<Task | null> {
    const index = this.tasks.findIndex((t) => t.userId === userId && t.number === taskNumber);
    return Promise.resolve(index < 0 ? null : this.tasks.splice(index, 1)[0]);
  }

  removeAsShown(
    userId: string,
    shown: readonly ShownTask[],
  ): Promise<{ removed: true; tasks: Task[] } | { removed: false; current: Task[] }> {
    const numbers = new Set(shown.map((task) => task.number));
    const current = this.tasks.filter((t) => t.userId === userId && numbers.has(t.number)).sort((a, b) => a.number - b.number);
    if (!unchangedSinceShown(shown, current)) return Promise.resolve({ removed: false, current });
    for (const task of current) this.tasks.splice(this.tasks.indexOf(task), 1);
    return Promise.resolve({ removed: true, tasks: current });
  }
}
