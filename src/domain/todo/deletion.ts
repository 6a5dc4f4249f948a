import { CHAT_REPLY_HINT, inQuestion, QUESTION_NAMED_MAX } from '../agent/confirmation';
import { joinedWithAnd, quoted } from '../shared/words';

/** A task as the person was shown it when asked to confirm its deletion. */
export interface ShownTask {
  readonly number: number;
  readonly title: string;
}

/** How the tasks a person was asked about differ from what those numbers hold now. */
export interface ChangesSinceShown {
  readonly gone: readonly ShownTask[];
  readonly renamed: readonly { readonly number: number; readonly was: string; readonly now: string }[];
}

/**
 * Compares what the person was shown with what those numbers hold now (`current`: the
 * tasks that still exist under them).
 */
export function changesSinceShown(shown: readonly ShownTask[], current: readonly ShownTask[]): ChangesSinceShown {
  const now = new Map(current.map((task) => [task.number, task.title]));
  const gone: ShownTask[] = [];
  const renamed: { number: number; was: string; now: string }[] = [];
  for (const task of shown) {
    const title = now.get(task.number);
    if (title === undefined) gone.push(task);
    else if (title !== task.title) renamed.push({ number: task.number, was: task.title, now: title });
  }
  return { gone, renamed };
}

export function unchangedSinceShown(shown: readonly ShownTask[], current: readonly ShownTask[]): boolean {
  const { gone, renamed } = changesSinceShown(shown, current);
  return gone.length === 0 && renamed.length === 0;
}

/** Changes named one by one; past this they are counted. */
const CHANGES_NAMED_MAX = 3;

/** "Since I asked, task 12 'x' is gone and task 13 'y' was renamed 'z'" (no full stop; titles cut as `quoted` cuts them). */
export function sinceAsked(changes: ChangesSinceShown): string {
  const { gone, renamed } = changes;
  const parts: string[] = [];
  if (gone.length + renamed.length > CHANGES_NAMED_MAX) {
    if (gone.length > 0) parts.push(`${gone.length} of those tasks ${gone.length === 1 ? 'is' : 'are'} gone`);
    if (renamed.length > 0) parts.push(`${renamed.length} ${renamed.length === 1 ? 'was' : 'were'} renamed`);
  } else {
    if (gone.length === 1) parts.push(`task ${gone[0].number} ${quoted(gone[0].title)} is gone`);
    if (gone.length > 1) parts.push(`tasks ${joinedWithAnd(gone.map((task) => `${task.number} ${quoted(task.title)}`))} are gone`);
    for (const task of renamed) parts.push(`task ${task.number} ${quoted(task.was)} was renamed ${quoted(task.now)}`);
  }
  return `Since I asked, ${joinedWithAnd(parts)}`;
}

/**
 * "Do you really want to delete 'Dentist'? Reply 'yes delete' to confirm." A longer list asked
 * for by scope is counted ("all 130 tasks"), not read out.
 */
export function deletionPrompt(titles: readonly string[], scope?: 'all' | 'completed'): string {
  let what: string;
  if (titles.length === 1) what = quoted(titles[0]);
  else if (scope !== undefined && titles.length > QUESTION_NAMED_MAX) {
    what = `all ${titles.length} ${scope === 'completed' ? 'completed tasks' : 'tasks'}`;
  } else what = `${titles.length} tasks: ${inQuestion(titles.map(quoted))}`;
  return `Do you really want to delete ${what}?${CHAT_REPLY_HINT}`;
}
