import { Injectable } from '@nestjs/common';
import { changeTask, type Task } from '../../domain/todo/task';
import { Clock } from '../shared/ports/clock.port';
import { editTask } from './edit-task';
import { TaskRepository } from './ports/task-repository.port';
import type { TaskRef } from './task-ref';

@Injectable()
export class CompleteTaskUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly clock: Clock,
  ) {}

  /** Completing a completed task changes nothing and keeps its completion time. */
  async execute(ref: TaskRef): Promise<{ task: Task; alreadyCompleted: boolean }> {
    const now = this.clock.now();
    const { before, after } = await editTask(this.tasks, ref, (task) =>
      task.completed ? task : changeTask(task, { completed: true }, now),
    );
    return { task: after, alreadyCompleted: before.completed };
  }
}
