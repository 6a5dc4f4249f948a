import { Injectable } from '@nestjs/common';
import type { ToolArguments } from '../../../domain/agent/tool-call-validation';
import { type Task, TaskNotFoundError } from '../../../domain/todo/task';
import { ambiguousSentence, notFoundSentence, WHICH_TASK } from '../../../domain/todo/tool-errors';
import { AddTaskUseCase } from '../add-task.use-case';
import { CompleteTaskUseCase } from '../complete-task.use-case';
import { DeleteTasksAsShownUseCase } from '../delete-tasks-as-shown.use-case';
import { GetTaskUseCase } from '../get-task.use-case';
import { ListTasksUseCase } from '../list-tasks.use-case';
import { UpdateTaskUseCase } from '../update-task.use-case';
import { findTasks } from './task-matching';
import { ToolFailure, view } from './tool-parts';

/**
 * What a todo tool runs with: the task use cases (the same ones as the task API) and the one
 * way every tool resolves the task a call names, by number or by words from its title.
 */
@Injectable()
export class TodoToolKit {
  constructor(
    readonly addTask: AddTaskUseCase,
    readonly listTasks: ListTasksUseCase,
    readonly getTask: GetTaskUseCase,
    readonly completeTask: CompleteTaskUseCase,
    readonly updateTask: UpdateTaskUseCase,
    readonly deleteTasks: DeleteTasksAsShownUseCase,
  ) {}

  /**
   * The one task that `number` or `query` designates.
   * @param options.preferPending words that match a pending task and completed ones mean the pending one
   * @throws ToolFailure MISSING_TARGET, TASK_NOT_FOUND, AMBIGUOUS_TASK; TaskNotFoundError for a number
   */
  async resolveOne(userId: string, args: ToolArguments, options: { preferPending: boolean }): Promise<Task> {
    if (typeof args.number === 'number') return this.getTask.execute({ userId, number: args.number });
    if (typeof args.query !== 'string') {
      throw new ToolFailure('MISSING_TARGET', WHICH_TASK);
    }
    const tasks = await this.listTasks.execute({ userId, status: 'all' });
    let matches = findTasks(tasks, args.query);
    if (options.preferPending && matches.some((task) => !task.completed)) {
      matches = matches.filter((task) => !task.completed);
    }
    if (matches.length === 0) throw new ToolFailure('TASK_NOT_FOUND', notFoundSentence(args.query), { query: args.query });
    if (matches.length > 1) {
      const details = { query: args.query, candidates: matches.map(view) };
      throw new ToolFailure('AMBIGUOUS_TASK', ambiguousSentence(details), details);
    }
    return matches[0];
  }

  /** The tasks `numbers`, a `scope` (every completed task, every task), or `number`/`query` designate. */
  async resolveMany(userId: string, args: ToolArguments): Promise<Task[]> {
    if (Array.isArray(args.numbers)) {
      const tasks = await this.listTasks.execute({ userId, status: 'all' });
      return [...new Set(args.numbers as number[])].map((taskNumber) => {
        const task = tasks.find((candidate) => candidate.number === taskNumber);
        if (!task) throw new TaskNotFoundError(taskNumber);
        return task;
      });
    }
    if (args.scope === 'completed' || args.scope === 'all') {
      const tasks = await this.listTasks.execute({ userId, status: args.scope });
      if (tasks.length === 0) {
        throw new ToolFailure('TASK_NOT_FOUND', args.scope === 'all' ? 'The list is empty.' : 'No task is completed.', {
          scope: args.scope,
        });
      }
      return tasks;
    }
    return [await this.resolveOne(userId, args, { preferPending: false })];
  }
}
