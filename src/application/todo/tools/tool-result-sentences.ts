import { TodoTools } from './todo-tools';

/**
 * What a built-in todo tool's successful result says, in one sentence of the server's own
 * (each tool's `sentence`): said instead of a model's reply that failed the reply check
 * (reply-check.ts). Null when the result does not say enough. A turn asks its own registry
 * (TodoTools.sentence), which may hold more tools.
 */
export function toolResultSentence(call: { readonly tool: string; readonly result?: unknown }): string | null {
  return TodoTools.builtIn.sentence(call);
}
