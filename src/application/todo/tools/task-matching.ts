import type { Task } from '../../../domain/todo/task';

/** Words that say nothing about which task is meant. */
const FILLER = new Set(['the', 'a', 'an', 'one', 'task', 'item', 'my', 'that', 'this', 'about', 'to', 'for', 'of']);

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0 && !FILLER.has(word));
}

/**
 * Tasks whose title contains every meaningful word of `query` (as a word prefix, so
 * "dentist" finds "Dentist appointment" and "call" finds "Calls"). An exact title wins.
 */
export function findTasks(tasks: readonly Task[], query: string): Task[] {
  const wanted = words(query);
  if (wanted.length === 0) return [];
  const exact = tasks.filter((task) => task.title.toLowerCase() === query.trim().toLowerCase());
  if (exact.length > 0) return exact;
  return tasks.filter((task) => {
    const titleWords = words(task.title);
    return wanted.every((word) => titleWords.some((titleWord) => titleWord.startsWith(word)));
  });
}
