import { TodoTools } from './todo-tools';
import type { TodoToolDefinition } from './todo-tool';

export { LIST_TOOL_MAX } from './descriptors/list-tasks.tool';
export type { TaskView } from './tool-parts';

/**
 * The built-in todo tools' definitions, each from its descriptor (descriptors/*.tool.ts).
 * Served over MCP, offered to every model, validated by the server. No tool takes a user id:
 * the server injects the authenticated one.
 *
 * Results (JSON) name tasks by number and title, never by internal id:
 *   TaskView = {number, title, description, priority, completed}; each descriptor says its result's shape.
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
 */
export const TODO_TOOLS: readonly TodoToolDefinition[] = TodoTools.builtIn.definitions;
