import { deletionQuestionEnding } from '../agent/confirmation';
import type { ToolErrorWording } from '../agent/failures';
import { joinedWithOr } from '../shared/words';

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

/** Asked when a call did not say which task (MISSING_TARGET), and by the offline model when a sentence does not. */
export const WHICH_TASK =
  "Could you provide more details about which task you mean? You can say its number, like 'task 2', or words from its title.";

/**
 * "I found multiple tasks about '<query>'. Which one: 1. Call mum or 2. Call the bank?": what
 * AMBIGUOUS_TASK says, from its details (the words looked for, the candidates by number and
 * title), to the model and to the person alike.
 */
export function ambiguousSentence(details: Readonly<Record<string, unknown>>): string {
  const candidates = (Array.isArray(details.candidates) ? (details.candidates as unknown[]) : []).flatMap((candidate) => {
    const task = typeof candidate === 'object' && candidate !== null ? (candidate as Record<string, unknown>) : {};
    return typeof task.number === 'number' && typeof task.title === 'string' ? [`${task.number}. ${task.title}`] : [];
  });
  const found = `I found multiple tasks about '${typeof details.query === 'string' ? details.query : 'that'}'.`;
  return candidates.length > 0 ? `${found} Which one: ${joinedWithOr(candidates)}?` : `${found} Which one do you mean?`;
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
      case 'AMBIGUOUS_TASK':
        return ambiguousSentence(details);
      case 'MISSING_TARGET':
        return WHICH_TASK;
      case 'TASK_BUSY':
        return 'That task is being changed right now. Please try again in a moment.';
      case 'REQUEST_STATE_REFUSED':
        // A 2026 MCP client's retry of a deletion whose question it cannot answer any more.
        return details.reason === 'expired' && typeof details.waitedMs === 'number'
          ? deletionQuestionEnding('expired', details.waitedMs)
          : 'That answer to the question could not be used, so nothing was deleted.';
      default:
        return null;
    }
  },
  fieldWords: { number: 'task number', numbers: 'task numbers', query: 'description of the task' },
};
