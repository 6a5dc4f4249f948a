import { Injectable } from '@nestjs/common';
import type { ShownTask } from '../../domain/todo/deletion';
import type { Task } from '../../domain/todo/task';
import { TaskRepository } from './ports/task-repository.port';

export type DeletionOutcome =
  | { readonly deleted: true; readonly tasks: readonly Task[] }
  /** Nothing was deleted: some task changed since it was shown. `current` is what those numbers hold now. */
  | { readonly deleted: false; readonly current: readonly Task[] };

/** Deletes the tasks exactly as the person was shown them, all or none. */
@Injectable()
export class DeleteTasksAsShownUseCase {
  constructor(private readonly tasks: TaskRepository) {}

  async execute(input: { userId: string; shown: readonly ShownTask[] }): Promise<DeletionOutcome> {
    const outcome = await this.tasks.removeAsShown(input.userId, input.shown);
    return outcome.removed ? { deleted: true, tasks: outcome.tasks } : { deleted: false, current: outcome.current };
  }
}
