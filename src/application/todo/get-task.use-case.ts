import { Injectable } from '@nestjs/common';
import { type Task, TaskNotFoundError } from '../../domain/todo/task';
import { TaskRepository } from './ports/task-repository.port';
import type { TaskRef } from './task-ref';

@Injectable()
export class GetTaskUseCase {
  constructor(private readonly tasks: TaskRepository) {}

  async execute(ref: TaskRef): Promise<Task> {
    const task = await this.tasks.findByNumber(ref.userId, ref.number);
    if (!task) throw new TaskNotFoundError(ref.number);
    return task;
  }
}
