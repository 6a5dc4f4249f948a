import { Injectable } from '@nestjs/common';
import { CONFIRMATION_STALE } from '../../../domain/agent/confirmation';
import { ambiguousSentence, notFoundSentence, TODO_TOOL_ERRORS, WHICH_TASK } from '../../../domain/todo/tool-errors';
import type { ToolArguments } from '../../../domain/agent/tool-call-validation';
import { DomainValidationError } from '../../../domain/shared/domain-error';
import { joinedWithAnd } from '../../../domain/shared/words';
import { changesSinceShown, deletionPrompt, type ShownTask, sinceAsked } from '../../../domain/todo/deletion';
import {
  type Task,
  type TaskChanges,
  TaskBusyError,
  TaskLimitReachedError,
  TaskNotFoundError,
  type TaskPriority,
  type TaskStatusFilter,
} from '../../../domain/todo/task';
import { type DryRunResult, type Resolution, type ResolvedCall, Toolbox } from '../../agent/ports/toolbox.port';
import type { ToolResult } from '../../agent/ports/tool-gateway.port';
import { AddTaskUseCase } from '../add-task.use-case';
import { CompleteTaskUseCase } from '../complete-task.use-case';
import { DeleteTasksAsShownUseCase } from '../delete-tasks-as-shown.use-case';
import { GetTaskUseCase } from '../get-task.use-case';
import { ListTasksUseCase } from '../list-tasks.use-case';
import { UpdateTaskUseCase } from '../update-task.use-case';
import { TODO_WORDS } from '../todo-words';
import { findTasks } from './task-matching';
import { LIST_TOOL_MAX, TODO_TOOLS, type TaskView } from './todo-tool-definitions';

export { LIST_TOOL_MAX };

class ToolFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** The todo tools, running the same use cases as the task API. */
@Injectable()
export class TodoToolbox extends Toolbox {
  readonly definitions = TODO_TOOLS;
  readonly errorWording = TODO_TOOL_ERRORS;
  readonly words = TODO_WORDS;

  constructor(
    private readonly addTask: AddTaskUseCase,
    private readonly listTasks: ListTasksUseCase,
    private readonly getTask: GetTaskUseCase,
    private readonly completeTask: CompleteTaskUseCase,
    private readonly updateTask: UpdateTaskUseCase,
    private readonly deleteTasks: DeleteTasksAsShownUseCase,
  ) {
    super();
  }

  async resolve(tool: string, args: ToolArguments, userId: string): Promise<Resolution> {
    const planned = await this.attempt(async () => this.plan(tool, args, userId));
    if (!planned.ok) return planned;
    const plan = planned.data as TodoPlan;
    return { ok: true, call: { tool, targets: { items: touched(plan), recipient: null }, plan } };
  }

  run(call: ResolvedCall, userId: string, options: { dryRun: boolean }): Promise<ToolResult> {
    return this.attempt(() => this.carryOut(call.plan as TodoPlan, userId, options.dryRun));
  }

  /** What a use case threw, as the tool's error result; anything else unexpected is thrown on. */
  private async attempt(work: () => Promise<unknown>): Promise<ToolResult> {
    try {
      return { ok: true, data: await work() };
    } catch (error) {
      if (error instanceof ToolFailure) return { ok: false, code: error.code, message: error.message, details: error.details };
      if (error instanceof TaskNotFoundError) {
        return { ok: false, code: 'TASK_NOT_FOUND', message: error.message, details: { number: error.taskNumber } };
      }
      if (error instanceof TaskLimitReachedError) {
        return { ok: false, code: 'TASK_LIMIT_REACHED', message: error.message, details: { limit: error.limit } };
      }
      if (error instanceof TaskBusyError) {
        return { ok: false, code: 'TASK_BUSY', message: error.message, details: { number: error.taskNumber } };
      }
      if (error instanceof DomainValidationError) {
        return { ok: false, code: 'INVALID_ARGUMENTS', message: error.message, details: { field: error.field } };
      }
      throw error;
    }
  }

  override chatRequestFor(tool: string, args: ToolArguments): string | null {
    if (tool !== 'delete_task') return null;
    const numbers =
      typeof args.number === 'number' ? [args.number] : Array.isArray(args.numbers) ? [...new Set(args.numbers as number[])] : [];
    if (numbers.length === 1) return `delete task ${numbers[0]}`;
    if (numbers.length > 1) return `delete tasks ${joinedWithAnd(numbers.map(String))}`;
    if (args.scope === 'all') return 'delete everything';
    if (args.scope === 'completed') return 'delete all completed tasks';
    return typeof args.query === 'string' ? `delete ${args.query}` : null;
  }

  /** The call's words resolved to exactly what it will do now (which tasks, by number and as they are). */
  private async plan(tool: string, args: ToolArguments, userId: string): Promise<TodoPlan> {
    switch (tool) {
      case 'add_task':
        return {
          kind: 'add',
          title: args.title as string,
          description: args.description as string | undefined,
          priority: args.priority as TaskPriority | undefined,
        };
      case 'list_tasks':
        return { kind: 'list', status: (args.status as TaskStatusFilter | undefined) ?? 'all' };
      case 'complete_task':
        return { kind: 'complete', number: (await this.resolveOne(userId, args, { preferPending: true })).number };
      case 'update_task': {
        const changes: TaskChanges = {
          title: args.title as string | undefined,
          description: args.description as string | undefined,
          priority: args.priority as TaskPriority | undefined,
        };
        if (Object.values(changes).every((value) => value === undefined)) {
          throw new ToolFailure('INVALID_ARGUMENTS', 'Say what to change: title, description or priority.');
        }
        return { kind: 'update', number: (await this.resolveOne(userId, args, { preferPending: false })).number, changes };
      }
      case 'delete_task': {
        // Only a confirmed call carries `tasks` (the schema a model sees has no such field): the tasks as the question showed them.
        if (Array.isArray(args.tasks)) return { kind: 'delete-as-shown', shown: args.tasks as ShownTask[] };
        const scope = args.scope === 'all' || args.scope === 'completed' ? args.scope : undefined;
        return { kind: 'delete', targets: await this.resolveMany(userId, args), scope };
      }
      default:
        throw new ToolFailure('UNKNOWN_TOOL', `There is no tool named "${tool}".`);
    }
  }

  private async carryOut(plan: TodoPlan, userId: string, dryRun: boolean): Promise<unknown> {
    switch (plan.kind) {
      case 'add': {
        const task = await this.addTask.execute({ userId, title: plan.title, description: plan.description, priority: plan.priority });
        return { task: view(task) };
      }
      case 'list': {
        const tasks = await this.listTasks.execute({ userId, status: plan.status });
        // The model reads a bounded list; the person's task list (API, console) has them all.
        const shown = tasks.slice(0, LIST_TOOL_MAX);
        return {
          status: plan.status,
          count: tasks.length,
          tasks: shown.map(view),
          ...(tasks.length > shown.length && { more: tasks.length - shown.length }),
        };
      }
      case 'complete': {
        const { task, alreadyCompleted } = await this.completeTask.execute({ userId, number: plan.number });
        return { task: view(task), alreadyCompleted };
      }
      case 'update': {
        const { task, previous } = await this.updateTask.execute({ userId, number: plan.number, changes: plan.changes });
        const changed = (['title', 'description', 'priority'] as const).filter((field) => task[field] !== previous[field]);
        return { task: view(task), previousTitle: previous.title, changed };
      }
      case 'delete-as-shown':
        if (dryRun) throw new ToolFailure('INVALID_ARGUMENTS', 'A confirmed deletion is not asked about again.');
        return this.deleteConfirmed(userId, plan.shown);
      case 'delete': {
        if (dryRun) return this.deletionToConfirm(plan.targets, plan.scope);
        // Named in this very call (an MCP client its operator trusts, or a confirmation stored
        // with numbers only): deleted as resolved, all or none.
        const targets = plan.targets.map(shownTask);
        const outcome = await this.deleteTasks.execute({ userId, shown: targets });
        if (!outcome.deleted) {
          throw new ToolFailure(
            'TASKS_CHANGED',
            'The tasks changed while they were being deleted, so nothing was deleted; look at the list again.',
            changesSinceShown(targets, outcome.current),
          );
        }
        return { deleted: outcome.tasks.map(view) };
      }
    }
  }

  /**
   * The question, and the call to run on "yes": the tasks with the titles the question shows,
   * so that "yes" deletes what the person saw or nothing.
   */
  private deletionToConfirm(targets: readonly Task[], scope?: 'all' | 'completed'): DryRunResult {
    return {
      prompt: deletionPrompt(
        targets.map((task) => task.title),
        scope,
      ),
      arguments: { tasks: targets.map(shownTask) },
      preview: { wouldDelete: targets.map(view) },
    };
  }

  /** The person's yes covers the tasks as shown: if any changed, nothing is deleted and they are asked again. */
  private async deleteConfirmed(userId: string, shown: readonly ShownTask[]): Promise<unknown> {
    const outcome = await this.deleteTasks.execute({ userId, shown });
    if (outcome.deleted) return { deleted: outcome.tasks.map(view) };
    const changes = changesSinceShown(shown, outcome.current);
    const said = `${sinceAsked(changes)}, so I deleted nothing.`;
    const askAgain = outcome.current.length > 0 ? this.deletionToConfirm(outcome.current) : null;
    const message = askAgain ? `${said} ${askAgain.prompt}` : said;
    throw new ToolFailure(CONFIRMATION_STALE, message, {
      ...changes,
      askAgain: askAgain && { ...askAgain, prompt: message },
    });
  }

  /** The one task that `number` or `query` designates. */
  private async resolveOne(userId: string, args: ToolArguments, options: { preferPending: boolean }): Promise<Task> {
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

  private async resolveMany(userId: string, args: ToolArguments): Promise<Task[]> {
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

/** A call resolved: what runs, with its targets named as they are now. */
type TodoPlan =
  | { readonly kind: 'add'; readonly title: string; readonly description?: string; readonly priority?: TaskPriority }
  | { readonly kind: 'list'; readonly status: TaskStatusFilter }
  | { readonly kind: 'complete'; readonly number: number }
  | { readonly kind: 'update'; readonly number: number; readonly changes: TaskChanges }
  /** Resolved from numbers, words or a scope (which the question names). */
  | { readonly kind: 'delete'; readonly targets: readonly Task[]; readonly scope?: 'all' | 'completed' }
  /** The person's yes: the tasks as they were shown, deleted only if each still holds its title. */
  | { readonly kind: 'delete-as-shown'; readonly shown: readonly ShownTask[] };

/** How many tasks a resolved call touches: each task it changes or deletes, the one it adds; a read of the list, 1. */
function touched(plan: TodoPlan): number {
  if (plan.kind === 'delete') return plan.targets.length;
  if (plan.kind === 'delete-as-shown') return new Set(plan.shown.map((task) => task.number)).size;
  return 1;
}

function shownTask(task: Task): ShownTask {
  return { number: task.number, title: task.title };
}

export function view(task: Task): TaskView {
  return {
    number: task.number,
    title: task.title,
    description: task.description,
    priority: task.priority,
    completed: task.completed,
  };
}
