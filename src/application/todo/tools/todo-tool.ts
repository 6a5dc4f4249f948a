import type { ToolArguments } from '../../../domain/agent/tool-call-validation';
import type { JsonSchema, ToolDefinition, ToolIntent } from '../../../domain/agent/tools';
import type { TaskChange } from '../../../domain/chat/summary-facts';
import type { RestTwin } from '../../../domain/policy/api-request';
import type { PolicySource } from '../../../domain/policy/policy';
import type { SettledOutcome, SettlingCall, TaskEvidence } from './evidence';
import type { TodoToolKit } from './todo-tool-kit';
import type { ResultFields } from './tool-parts';

/** Where a todo tool may be called from: the chat's agent, an MCP client, the REST API (`POST /api/:userId/tools/:name`). */
export type TodoToolSource = Exclude<PolicySource, 'outreach'>;

/** A todo tool's definition: what the model, MCP clients and the policy read of it. */
export interface TodoToolDefinition extends ToolDefinition {
  /** What a person calls it: MCP's `Tool.title`, the console's label for a call. */
  readonly title: string;
  readonly intent: ToolIntent;
  readonly outputSchema: JsonSchema & { readonly type: 'object' };
  /** Where it may be called from: a rule of the policy can name it from these. */
  readonly sources: readonly TodoToolSource[];
  /** Which REST task request amounts to this tool, for the policy (a PATCH that completes is complete_task); null for none. */
  readonly restTwin: RestTwin | null;
}

/** Who a call is for, and what it runs with. */
export interface TodoCall {
  readonly userId: string;
  readonly kit: TodoToolKit;
}

/**
 * A call resolved against the person's tasks as they are now: how many things it touches (what
 * the policy decides on) and how it runs exactly that, without resolving anything again.
 */
export interface TodoPlan {
  readonly items: number;
  /** Its result; in a dry run, a destructive tool's question (DryRunResult) and no change. */
  run(options: { readonly dryRun: boolean }): Promise<unknown>;
}

/**
 * One todo tool, whole: every part of Bridle that knows a tool reads it from here, through the
 * registry (TodoTools). A descriptor states each part, `satisfies TodoTool`, so that a missing
 * one does not compile.
 */
export interface TodoTool {
  readonly definition: TodoToolDefinition;
  /**
   * The call's arguments (validated against the schema) resolved to what it will do now.
   * @throws ToolFailure, or a task error (TaskNotFoundError…), when it names nothing there is
   */
  plan(args: ToolArguments, call: TodoCall): Promise<TodoPlan>;
  /** What its successful result says, in one sentence of the server's own; null when the result does not say enough. */
  sentence(result: ResultFields): string | null;
  /** Its outcome after a crash between its pending audit row and its outcome, from the tasks as they are now. */
  settle(call: SettlingCall, evidence: TaskEvidence): SettledOutcome;
  /** What its successful result did to tasks (a conversation's summary names them); none for a call that changed nothing. */
  taskChanges(result: ResultFields): readonly TaskChange[];
  /** What the person could say in the chat to ask for this call themselves ("delete task 3"); null when there is no such sentence. */
  chatRequest(args: ToolArguments): string | null;
}
