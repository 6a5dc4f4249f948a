import type { JsonSchema, ToolDefinition } from '../../../domain/agent/tools';
import {
  DESCRIPTION_MAX_LENGTH,
  TASK_NUMBER_MAX,
  TASK_PRIORITIES,
  TASK_STATUS_FILTERS,
  TASKS_PER_USER_MAX,
  TITLE_MAX_LENGTH,
} from '../../../domain/todo/task';

const taskNumber: JsonSchema = {
  type: 'integer',
  minimum: 1,
  maximum: TASK_NUMBER_MAX,
  description: "The task's number as shown in the list (1, 2, 3…)",
};
const query: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: TITLE_MAX_LENGTH,
  description: 'Words from the task title, when the person did not give a number',
};
const title: JsonSchema = { type: 'string', minLength: 1, maxLength: TITLE_MAX_LENGTH };
const description: JsonSchema = { type: 'string', maxLength: DESCRIPTION_MAX_LENGTH };
const priority: JsonSchema = { type: 'string', enum: TASK_PRIORITIES };
/** Enough for what a person names in one sentence; a confirmed deletion may cover the whole list. */
const NUMBERS_PER_CALL_MAX = 100;
/** Tasks one list_tasks result carries at most, in number order. */
export const LIST_TOOL_MAX = 50;

/** A task as every result names it (TaskView): by number and title, never by internal id. */
const taskView: JsonSchema = {
  type: 'object',
  properties: {
    number: { type: 'integer', minimum: 1 },
    title: { type: 'string' },
    description: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    priority,
    completed: { type: 'boolean' },
  },
  required: ['number', 'title', 'description', 'priority', 'completed'],
  additionalProperties: false,
};
const taskViews: JsonSchema = { type: 'array', items: taskView };

/** A result of exactly these fields (`optional` may be left out). */
function result(properties: Record<string, JsonSchema>, optional: readonly string[] = []): JsonSchema & { type: 'object' } {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties).filter((name) => !optional.includes(name)),
    additionalProperties: false,
  };
}

/**
 * The todo tools, defined once. Served over MCP, offered to every model, validated by the
 * server. No tool takes a user id: the server injects the authenticated one.
 *
 * Results (JSON) name tasks by number and title, never by internal id:
 *   TaskView = {number, title, description, priority, completed}
 *   add_task      → {task}
 *   list_tasks    → {status, count, tasks: TaskView[], more?}: the first LIST_TOOL_MAX (50) in number order;
 *                   `more` says how many of `count` were left out
 *   complete_task → {task, alreadyCompleted}
 *   update_task   → {task, previousTitle, changed: string[]}
 *   delete_task   → {deleted: TaskView[]}, all named tasks or none; in a dry run {wouldDelete: TaskView[]}
 * Errors: {code, message, details?} with code TASK_NOT_FOUND (details {query | number}),
 * AMBIGUOUS_TASK (details {query, candidates: TaskView[]}), MISSING_TARGET,
 * TASK_LIMIT_REACHED (details {limit}), TASK_BUSY (details {number}: it kept changing under the write; nothing changed),
 * TASKS_CHANGED (details {gone, renamed}: they changed while being deleted; nothing deleted),
 * CONFIRMATION_REQUIRED (a destructive call on a channel that cannot ask the person),
 * CONFIRMATION_STALE (details {gone, renamed, askAgain}: a confirmed deletion found the tasks
 * changed since the question; nothing deleted), INVALID_ARGUMENTS, UNKNOWN_TOOL, MALFORMED_ARGUMENTS.
 *
 * Each tool's `outputSchema` says exactly that result; MCP adds the shapes its own door answers
 * (an error, a deletion the person did not confirm) where the tools are listed (tool-calls.ts).
 *
 * delete_task's description ends with a sentence per channel (what the server does with a
 * destructive call there), added where the tools are served.
 */
export const TODO_TOOLS: readonly ToolDefinition[] = [
  {
    name: 'add_task',
    intent: 'CREATE',
    description: "Add a task to the person's list.",
    inputSchema: {
      type: 'object',
      properties: { title, description, priority },
      required: ['title'],
      additionalProperties: false,
    },
    outputSchema: result({ task: taskView }),
    mutates: true,
    destructive: false,
  },
  {
    name: 'list_tasks',
    intent: 'READ',
    description: "List the person's tasks: all (default), pending or completed.",
    inputSchema: {
      type: 'object',
      properties: { status: { type: 'string', enum: TASK_STATUS_FILTERS } },
      additionalProperties: false,
    },
    outputSchema: result(
      {
        status: { type: 'string', enum: TASK_STATUS_FILTERS },
        count: { type: 'integer', minimum: 0, description: 'How many tasks have this status' },
        tasks: { ...taskViews, maxItems: LIST_TOOL_MAX, description: `The first ${LIST_TOOL_MAX}, in number order` },
        more: { type: 'integer', minimum: 1, description: 'How many of count were left out' },
      },
      ['more'],
    ),
    mutates: false,
    destructive: false,
  },
  {
    name: 'complete_task',
    intent: 'COMPLETE',
    description: 'Mark one task as done, by number or by words from its title.',
    inputSchema: {
      type: 'object',
      properties: { number: taskNumber, query },
      additionalProperties: false,
    },
    outputSchema: result({
      task: taskView,
      alreadyCompleted: { type: 'boolean', description: 'It was done before this call: nothing changed' },
    }),
    mutates: true,
    destructive: false,
    changesExisting: true,
  },
  {
    name: 'update_task',
    intent: 'UPDATE',
    description: "Change one task's title, description or priority, by number or by words from its title.",
    inputSchema: {
      type: 'object',
      properties: { number: taskNumber, query, title, description, priority },
      additionalProperties: false,
    },
    outputSchema: result({
      task: taskView,
      previousTitle: { type: 'string' },
      changed: { type: 'array', items: { type: 'string', enum: ['title', 'description', 'priority'] } },
    }),
    mutates: true,
    destructive: false,
    changesExisting: true,
  },
  {
    name: 'delete_task',
    intent: 'DELETE',
    description:
      'Delete tasks: one by number or by words from its title, several by numbers, or every ' +
      'completed task (scope "completed") or every task (scope "all").',
    inputSchema: {
      type: 'object',
      properties: {
        number: taskNumber,
        numbers: { type: 'array', items: taskNumber, minItems: 1, maxItems: NUMBERS_PER_CALL_MAX },
        query,
        scope: { type: 'string', enum: ['completed', 'all'] },
      },
      additionalProperties: false,
    },
    // The tasks exactly as the question showed them: deleted only if each still holds that title.
    // `numbers` is what confirmations stored before titles were kept.
    confirmedInputSchema: {
      type: 'object',
      properties: {
        tasks: {
          type: 'array',
          items: {
            type: 'object',
            properties: { number: taskNumber, title },
            required: ['number', 'title'],
            additionalProperties: false,
          },
          minItems: 1,
          maxItems: TASKS_PER_USER_MAX,
        },
        numbers: { type: 'array', items: taskNumber, minItems: 1, maxItems: TASKS_PER_USER_MAX },
      },
      additionalProperties: false,
    },
    outputSchema: result({ deleted: { ...taskViews, description: 'Every task the call named: all of them or none' } }),
    mutates: true,
    destructive: true,
  },
];

export interface TaskView {
  readonly number: number;
  readonly title: string;
  readonly description: string | null;
  readonly priority: string;
  readonly completed: boolean;
}
