import type { ToolErrorWording } from '../agent/failures';

/** Said when TASK_NOT_FOUND says no more than that. */
const TASK_GONE = "I couldn't find that task; it may have been deleted. Say 'show my tasks' to see what's on your list.";

/** "I couldn't find a task about '<query>' in your list. Say 'show my tasks' to see what's on it." */
export function notFoundSentence(query: string): string {
  return `I couldn't find a task about '${query}' in your list. Say 'show my tasks' to see what's on it.`;
}

/**
 * What a person is told when TASK_NOT_FOUND answered a call, from its details: the words
 * looked for, the number, or the scope of a deletion. Each names what to do next.
 */
export function taskNotFoundSentence(details: Readonly<Record<string, unknown>>): string {
  if (typeof details.query === 'string') return notFoundSentence(details.query);
  if (typeof details.number === 'number') {
    return `I couldn't find task ${details.number} in your list. Say 'show my tasks' to see their numbers.`;
  }
  if (details.scope === 'all') return 'Your list is already empty.';
  if (details.scope === 'completed') return "You don't have any completed tasks to remove.";
  return TASK_GONE;
}

/** How the todo tools' own error codes read to the person, and what they count as. */
export const TODO_TOOL_ERRORS: ToolErrorWording = {
  classOf: { AMBIGUOUS_TASK: 'INVALID_ARGUMENTS', TASK_NOT_FOUND: 'NOT_FOUND' },
  sentence(code, details) {
    switch (code) {
      case 'TASK_LIMIT_REACHED':
        return typeof details.limit === 'number'
          ? `Your list is full: it holds at most ${details.limit} tasks. Delete some to make room.`
          : 'Your list is full. Delete some tasks to make room.';
      case 'TASK_NOT_FOUND':
        return taskNotFoundSentence(details);
      case 'TASK_BUSY':
        return 'That task is being changed right now. Please try again in a moment.';
      default:
        return null;
    }
  },
  fieldWords: { number: 'task number', numbers: 'task numbers', query: 'description of the task' },
};
