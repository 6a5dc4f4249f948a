import { Injectable } from '@nestjs/common';
import { type Task, TaskNotFoundError } from '../../domain/todo/task';
import { TaskRepository } from './ports/task-repository.port';
import type { TaskRef } from './task-ref';

@Injectable()
export class DeleteTaskUseCase {
  constructor(private readonly tasks: TaskRepository) {}

  async execute(ref: TaskRef): Promise<Task> {
    const removed = await this.tasks.remove(ref.userId, ref.number);
    if (!removed) throw new TaskNotFoundError(ref.number);
    return removed;
  }
}
