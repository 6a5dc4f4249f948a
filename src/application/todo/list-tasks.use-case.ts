import { Injectable } from '@nestjs/common';
import { type Task, type TaskStatusFilter } from '../../domain/todo/task';
import { TaskRepository } from './ports/task-repository.port';

@Injectable()
export class ListTasksUseCase {
  constructor(private readonly tasks: TaskRepository) {}

  execute(input: { userId: string; status: TaskStatusFilter }): Promise<Task[]> {
    return this.tasks.list(input.userId, input.status);
  }
}
