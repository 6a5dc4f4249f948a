import { Injectable } from '@nestjs/common';
import { changeTask, type Task, type TaskChanges } from '../../domain/todo/task';
import { Clock } from '../shared/ports/clock.port';
import { editTask } from './edit-task';
import { TaskRepository } from './ports/task-repository.port';
import type { TaskRef } from './task-ref';

@Injectable()
export class UpdateTaskUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * Changes only the given fields: a concurrent change of other fields is kept, not overwritten.
   * @returns the task as stored, and as it was just before this change.
   */
  async execute(input: TaskRef & { changes: TaskChanges }): Promise<{ task: Task; previous: Task }> {
    const now = this.clock.now();
    const { before, after } = await editTask(this.tasks, input, (task) => changeTask(task, input.changes, now));
    return { task: after, previous: before };
  }
}
