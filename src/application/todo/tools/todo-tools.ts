import { DomainValidationError } from '../../../domain/shared/domain-error';
import type { ToolCallRecord } from '../../../domain/chat/conversation';
import type { TaskChange } from '../../../domain/chat/summary-facts';
import { apiRequestCalls, type ApiCall, type TaskApiRequest } from '../../../domain/policy/api-request';
import { type SettledOutcome, type TaskEvidence, type UnsettledCall, unknownOutcome } from './evidence';
import type { TodoTool, TodoToolDefinition, TodoToolSource } from './todo-tool';
import { TODO_TOOL_LIST } from './todo-tool-list';
import { fields } from './tool-parts';

/** What the console and the chat API show of a call to `tool`: its title, and whether it changes tasks. */
export interface ToolLabel {
  readonly title: string;
  readonly changesTasks: boolean;
}

/**
 * The todo tools, each one descriptor (TodoTool): everything that knows a todo tool asks here
 * (the toolbox, the policy's catalogue and REST twins, the system prompt, the server's
 * sentences, the crash sweeper's evidence, the summary's task changes, the chat API's labels),
 * so that a tool is added in one place. TodoToolsModule provides the built-in ones; a test
 * provides more (`TodoTools.builtIn.with([...])`).
 */
export class TodoTools {
  static readonly builtIn = new TodoTools(TODO_TOOL_LIST);

  private readonly byName: ReadonlyMap<string, TodoTool>;
  /** Their definitions, in order. */
  readonly definitions: readonly TodoToolDefinition[];

  constructor(readonly all: readonly TodoTool[]) {
    this.byName = new Map(all.map((tool) => [tool.definition.name, tool]));
    if (this.byName.size !== all.length) throw new Error('Two todo tools have the same name');
    this.definitions = all.map((tool) => tool.definition);
  }

  /** These tools and `more`, after them. */
  with(more: readonly TodoTool[]): TodoTools {
    return new TodoTools([...this.all, ...more]);
  }

  find(name: string): TodoTool | undefined {
    return this.byName.get(name);
  }

  /** Whether `name` is a tool callable from `source`. */
  callableFrom(name: string, source: TodoToolSource): boolean {
    return this.find(name)?.definition.sources.includes(source) ?? false;
  }

  /** A call's label; a name that is no tool's is its own title, and changes nothing. */
  label(name: string): ToolLabel {
    const definition = this.find(name)?.definition;
    return { title: definition?.title ?? name, changesTasks: definition?.mutates ?? false };
  }

  /** The server's sentence for a successful call's result; null when it has none. */
  sentence(call: { readonly tool: string; readonly result?: unknown }): string | null {
    return this.find(call.tool)?.sentence(fields(call.result)) ?? null;
  }

  /** What a stored call did to tasks; nothing for a failed call or one that changed nothing. */
  taskChanges(call: ToolCallRecord): readonly TaskChange[] {
    const tool = this.find(call.tool);
    return call.success && tool?.definition.mutates ? tool.taskChanges(fields(call.result)) : [];
  }

  /** Whether a successful call to `name` is told by its task changes (taskChanges) rather than by its result. */
  changesTasks(name: string): boolean {
    return this.find(name)?.definition.mutates ?? false;
  }

  /** The tool calls a REST task request amounts to (each tool's `restTwin`). */
  apiRequestCalls(request: TaskApiRequest): readonly ApiCall[] {
    return apiRequestCalls(request, this.definitions);
  }

  /**
   * The outcome of a call whose process stopped between its pending audit row and its
   * outcome, told from what the database shows now. `succeeded` only when the call's effect
   * is there and nothing else can account for it; otherwise `unknown`, for a person to check.
   * @param windowMs how long after its pending row the call could still have written (its
   *   tool budget: a task's time is taken as the tool starts, right after that row commits).
   */
  settle(call: UnsettledCall, evidence: TaskEvidence, windowMs: number): SettledOutcome {
    if (typeof call.arguments === 'string') return unknownOutcome('its arguments were not readable');
    const tool = this.find(call.tool);
    if (!tool) return unknownOutcome(`the effect of ${call.tool} cannot be checked`);
    try {
      return tool.settle({ arguments: call.arguments, startedAt: call.startedAt, windowMs }, evidence);
    } catch (error) {
      // Arguments the tool itself would have refused (e.g. masked when recorded) prove nothing.
      if (error instanceof DomainValidationError) return unknownOutcome(`its arguments do not describe a task: ${error.message}`);
      throw error;
    }
  }
}
