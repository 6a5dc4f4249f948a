import { Injectable } from '@nestjs/common';
import { changeTask, type Task } from '../../domain/todo/task';
import { Clock } from '../shared/ports/clock.port';
import { GetTaskUseCase } from './get-task.use-case';
import { TaskRepository } from './ports/task-repository.port';
import type { TaskRef } from './task-ref';

@Injectable()
export class CompleteTaskUseCase {
  constructor(
    private readonly getTask: GetTaskUseCase,
    private readonly tasks: TaskRepository,
    private readonly clock: Clock,
  ) {}

  /** Completing a completed task changes nothing and keeps its completion time. */
  async execute(ref: TaskRef): Promise<{ task: Task; alreadyCompleted: boolean }> {
    const task = await this.getTask.execute(ref);
    if (task.completed) return { task, alreadyCompleted: true };
    const completed = changeTask(task, { completed: true }, this.clock.now());
    await this.tasks.save(completed);
    return { task: completed, alreadyCompleted: false };
  }
}
