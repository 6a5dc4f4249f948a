import { Injectable } from '@nestjs/common';
import type { ToolWords } from '../../../domain/agent/tool-words';
import { todoWords } from '../todo-words';
import type { ToolArguments } from '../../../domain/agent/tool-call-validation';
import { DomainValidationError } from '../../../domain/shared/domain-error';
import { TaskBusyError, TaskLimitReachedError, TaskNotFoundError } from '../../../domain/todo/task';
import { TODO_TOOL_ERRORS } from '../../../domain/todo/tool-errors';
import { type Resolution, type ResolvedCall, Toolbox } from '../../agent/ports/toolbox.port';
import type { ToolResult } from '../../agent/ports/tool-gateway.port';
import { LIST_TOOL_MAX } from './descriptors/list-tasks.tool';
import type { TodoPlan, TodoToolDefinition } from './todo-tool';
import { TodoToolKit } from './todo-tool-kit';
import { TodoTools } from './todo-tools';
import { ToolFailure, view } from './tool-parts';

export { LIST_TOOL_MAX, view };

/** The todo tools (TodoTools), running the same use cases as the task API (TodoToolKit). */
@Injectable()
export class TodoToolbox extends Toolbox {
  readonly definitions: readonly TodoToolDefinition[];
  readonly errorWording = TODO_TOOL_ERRORS;
  readonly words: ToolWords;

  constructor(
    private readonly tools: TodoTools,
    private readonly kit: TodoToolKit,
  ) {
    super();
    this.definitions = tools.definitions;
    this.words = todoWords(tools);
  }

  async resolve(tool: string, args: ToolArguments, userId: string): Promise<Resolution> {
    const planned = await this.attempt(async () => {
      const descriptor = this.tools.find(tool);
      if (!descriptor) throw new ToolFailure('UNKNOWN_TOOL', `There is no tool named "${tool}".`);
      return descriptor.plan(args, { userId, kit: this.kit });
    });
    if (!planned.ok) return planned;
    const plan = planned.data as TodoPlan;
    return { ok: true, call: { tool, targets: { items: plan.items, recipient: null }, plan } };
  }

  run(call: ResolvedCall, _userId: string, options: { dryRun: boolean }): Promise<ToolResult> {
    return this.attempt(async () => (call.plan as TodoPlan).run(options));
  }

  override chatRequestFor(tool: string, args: ToolArguments): string | null {
    return this.tools.find(tool)?.chatRequest(args) ?? null;
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
}
