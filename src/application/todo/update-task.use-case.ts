import { Injectable } from '@nestjs/common';
import { changeTask, type Task, type TaskChanges } from '../../domain/todo/task';
import { Clock } from '../shared/ports/clock.port';
import { GetTaskUseCase } from './get-task.use-case';
import { TaskRepository } from './ports/task-repository.port';
import type { TaskRef } from './task-ref';

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
