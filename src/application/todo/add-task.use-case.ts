import { Injectable } from '@nestjs/common';
import { draftTask, type Task, TaskLimitReachedError, type TaskPriority, TASKS_PER_USER_MAX } from '../../domain/todo/task';
import { Clock } from '../shared/ports/clock.port';
import { TaskRepository } from './ports/task-repository.port';

@Injectable()
export class AddTaskUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly clock: Clock,
  ) {}

  async execute(input: { userId: string; title: string; description?: string | null; priority?: TaskPriority }): Promise<Task> {
    const task = await this.tasks.add(input.userId, draftTask(input), this.clock.now(), TASKS_PER_USER_MAX);
    if (!task) throw new TaskLimitReachedError(TASKS_PER_USER_MAX);
    return task;
  }
}
