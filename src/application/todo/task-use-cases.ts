import { Injectable } from '@nestjs/common';
import {
  changeTask,
  draftTask,
  type Task,
  type TaskChanges,
  TaskNotFoundError,
  type TaskPriority,
  type TaskStatusFilter,
} from '../../domain/todo/task';
import { Clock } from '../shared/ports/clock.port';
import { TaskRepository } from './ports/task-repository.port';

/** Addresses one task of one user; another user's task is simply not found. */
export interface TaskRef {
  readonly userId: string;
  readonly number: number;
}

@Injectable()
export class AddTaskUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly clock: Clock,
  ) {}

  async execute(input: {
    userId: string;
    title: string;
    description?: string | null;
    priority?: TaskPriority;
  }): Promise<Task> {
    return this.tasks.add(input.userId, draftTask(input), this.clock.now());
  }
}

@Injectable()
export class ListTasksUseCase {
  constructor(private readonly tasks: TaskRepository) {}

  execute(input: { userId: string; status: TaskStatusFilter }): Promise<Task[]> {
    return this.tasks.list(input.userId, input.status);
  }
}

@Injectable()
export class GetTaskUseCase {
  constructor(private readonly tasks: TaskRepository) {}

  async execute(ref: TaskRef): Promise<Task> {
    const task = await this.tasks.findByNumber(ref.userId, ref.number);
    if (!task) throw new TaskNotFoundError(ref.number);
    return task;
  }
}

@Injectable()
export class UpdateTaskUseCase {
  constructor(
    private readonly getTask: GetTaskUseCase,
    private readonly tasks: TaskRepository,
    private readonly clock: Clock,
  ) {}

  async execute(input: TaskRef & { changes: TaskChanges }): Promise<Task> {
    const updated = changeTask(await this.getTask.execute(input), input.changes, this.clock.now());
    await this.tasks.save(updated);
    return updated;
  }
}

@Injectable()
export class CompleteTaskUseCase {
  constructor(
    private readonly getTask: GetTaskUseCase,
    private readonly tasks: TaskRepository,
    private readonly clock: Clock,
  ) {}

  /** Completing a completed task changes nothing and keeps its completion time. */
  async execute(ref: TaskRef): Promise<Task> {
    const task = await this.getTask.execute(ref);
    if (task.completed) return task;
    const completed = changeTask(task, { completed: true }, this.clock.now());
    await this.tasks.save(completed);
    return completed;
  }
}

@Injectable()
export class DeleteTaskUseCase {
  constructor(private readonly tasks: TaskRepository) {}

  async execute(ref: TaskRef): Promise<Task> {
    const removed = await this.tasks.remove(ref.userId, ref.number);
    if (!removed) throw new TaskNotFoundError(ref.number);
    return removed;
  }
}
