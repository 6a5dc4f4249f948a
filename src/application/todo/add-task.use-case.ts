import { Injectable } from '@nestjs/common';
import { draftTask, type Task, type TaskPriority } from '../../domain/todo/task';
import { Clock } from '../shared/ports/clock.port';
import { TaskRepository } from './ports/task-repository.port';

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
