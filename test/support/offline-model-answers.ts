/** Asks which task: what the model says when a sentence names none it can find. */
export const WHICH_TASK =
  "Could you provide more details about which task you mean? You can say its number, like 'task 2', or words from its title.";

/** What the offline model is expected to answer: a tool call with its arguments, or a text. */
export type Expected = { readonly tool: string; readonly args: Record<string, unknown> } | { readonly text: unknown };

export const calls = (tool: string, args: Record<string, unknown>): Expected => ({ tool, args });
export const says = (text: unknown): Expected => ({ text });
export const greets = says(expect.stringMatching(/^Hi! /));
export const adds = (title: string, priority?: string) => calls('add_task', priority ? { title, priority } : { title });
export const lists = (status: string) => calls('list_tasks', { status });
export const completes = (args: Record<string, unknown>) => calls('complete_task', args);
export const updates = (args: Record<string, unknown>) => calls('update_task', args);
export const deletes = (args: Record<string, unknown>) => calls('delete_task', args);
