import type { ToolWords, WordedCall } from '../../domain/agent/tool-words';
import { quoted } from '../../domain/shared/words';
import { TodoTools } from './tools/todo-tools';

/** "complete task 3", "update 'rent'": a task tool's call named by its verb (the tool's name without `_task`) and its target. */
export function taskCallInWords(call: WordedCall): string {
  const verb = call.tool.replace(/_task$/, '').replace(/_/g, ' ');
  const { number, query } = call.arguments;
  const target = typeof number === 'number' ? `task ${number}` : typeof query === 'string' ? quoted(query) : 'a task';
  return `${verb} ${target}`;
}

/** What "yes" to a task tool's stored call acts on: the tasks a deletion deletes, by the titles they were shown with; else the call. */
export function taskConfirmationItems(call: WordedCall): string[] {
  const { tasks } = call.arguments;
  if (!Array.isArray(tasks)) return [taskCallInWords(call)];
  return (tasks as unknown[]).map((task) => {
    const { number, title } = (task ?? {}) as { number?: unknown; title?: unknown };
    return typeof title === 'string' ? title : `task ${String(number)}`;
  });
}

/** The todo tools' codes after which the person is asked which task: several match, or the call named none. */
export const TASK_CLARIFYING_ERRORS: readonly string[] = ['AMBIGUOUS_TASK', 'MISSING_TARGET'];

/** "Yes, delete 1 task", "Yes, delete 3 tasks": the only call a todo tool asks about is a deletion. */
export function taskConfirmLabel(_tool: string, count: number): string {
  return `Yes, delete ${count === 1 ? '1 task' : `${count} tasks`}`;
}

/** The todo product's words, as its toolbox hands them to the core (Toolbox.words): each result's sentence from its tool's descriptor. */
export function todoWords(tools: TodoTools): ToolWords {
  return {
    callInWords: taskCallInWords,
    confirmationItems: taskConfirmationItems,
    resultSentence: (call) => tools.sentence(call),
    clarifyingErrorCodes: TASK_CLARIFYING_ERRORS,
    confirmLabel: taskConfirmLabel,
  };
}

/** The built-in tools' words. */
export const TODO_WORDS: ToolWords = todoWords(TodoTools.builtIn);
