import { joinedWithAnd } from '../shared/words';

/**
 * A conversation's summary written from facts, with no model: what the person asked and
 * what was done to their tasks, by number and title. Written in plain sentences a model
 * reads, and read back by foldedSummary when it is the summary so far, so each summary
 * folds the previous one in whole instead of quoting it.
 *
 * The text is one line of sentences; every name in it is quoted as a JSON string, which is
 * what makes it readable back. Lists are bounded: a count, then the latest few.
 */

/** What one tool call did to one task. */
export type TaskChange =
  | { readonly kind: 'added' | 'completed' | 'changed' | 'deleted'; readonly number: number; readonly title: string }
  | { readonly kind: 'renamed'; readonly number: number; readonly title: string; readonly previousTitle: string };

/** The part of a conversation being summarised, oldest first. */
export interface FoldedTurns {
  /** The person's messages. */
  readonly asked: readonly string[];
  readonly done: readonly TaskChange[];
}

/** Messages and tasks a summary names one by one, the latest; the rest are only counted. */
export const ASKED_NAMED_MAX = 6;
export const TASKS_NAMED_MAX = 8;
/** How much of a message or title a summary quotes; longer ones end at a word, with "…". */
export const QUOTED_MAX_CHARS = 80;

/** What a summary says when there was nothing to summarise. */
export const NOTHING_TO_SUMMARISE = 'Nothing was asked or done.';

/**
 * The summary of `folded`, after `previous` (the summary so far, or null), within
 * `maxChars`. A previous summary in this format is folded in whole (its counts added to,
 * its lists continued); another text (a model's own summary) is kept in front, shortened at
 * a word to a third of `maxChars`. No word is ever cut: a long message or title ends at a
 * word with "…", and past `maxChars` the oldest names are dropped from the longest list.
 */
export function foldedSummary(previous: string | null, folded: FoldedTurns, maxChars: number): string {
  const before = previous === null ? null : factsOf(previous);
  const facts = before ?? { ...noFacts(), earlier: shortenedAtWord(previous ?? '', Math.floor(maxChars / 3)) || null };
  const next: Facts = {
    earlier: facts.earlier,
    asked: continued(
      facts.asked,
      folded.asked.map((message) => shortenedAtWord(message, QUOTED_MAX_CHARS)),
      ASKED_NAMED_MAX,
    ),
    added: tasksContinued(facts.added, folded.done, 'added'),
    completed: tasksContinued(facts.completed, folded.done, 'completed'),
    renamed: tasksContinued(facts.renamed, folded.done, 'renamed'),
    changed: tasksContinued(facts.changed, folded.done, 'changed'),
    deleted: tasksContinued(facts.deleted, folded.done, 'deleted'),
  };
  return fitted(next, maxChars);
}

/** "Done: added task 3 "Buy milk" and completed task 1 "Call mum".": what a turn's tool calls did, in one line. */
export function changesInWords(changes: readonly TaskChange[]): string {
  return `${DONE}${joinedWithAnd(changes.map((change) => `${change.kind} ${taskInWords(change)}`))}.`;
}

/** The changes a changesInWords line names, or null when `line` is not one. */
export function changesFromWords(line: string): TaskChange[] | null {
  const reader = new Reader(line);
  if (!reader.take(DONE)) return null;
  const changes = reader.list(() => {
    const kind = CHANGE_KINDS.find((candidate) => reader.take(`${candidate} `));
    return kind === undefined ? null : reader.task(kind);
  });
  return changes !== null && reader.take('.') && reader.atEnd() ? changes : null;
}

/**
 * `text` on one line, within `max` characters, never ending inside a word: a longer text
 * ends at the last whole word that fits, followed by "…" (just "…" when not even its first
 * word fits).
 */
export function shortenedAtWord(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  const head = line.slice(0, Math.max(0, max - 1));
  const cut = line[head.length] === ' ' ? head.length : head.lastIndexOf(' ');
  return `${line.slice(0, Math.max(0, cut)).trimEnd()}…`;
}

const DONE = 'Done: ';
const CHANGE_KINDS = ['added', 'completed', 'renamed', 'changed', 'deleted'] as const;

/** A count, then the latest `named` of what it counts, oldest first. */
interface Tally<T> {
  readonly count: number;
  readonly named: readonly T[];
}

interface Facts {
  /** A summary in another form, kept in front. */
  readonly earlier: string | null;
  readonly asked: Tally<string>;
  readonly added: Tally<TaskChange>;
  readonly completed: Tally<TaskChange>;
  readonly renamed: Tally<TaskChange>;
  readonly changed: Tally<TaskChange>;
  readonly deleted: Tally<TaskChange>;
}

type ListName = Exclude<keyof Facts, 'earlier'>;

/** The sentences, in order: how each begins, and what it counts. */
const SENTENCES: readonly { readonly list: ListName; readonly lead: string; readonly one: string; readonly many: string }[] = [
  { list: 'asked', lead: 'The person sent', one: 'message', many: 'messages' },
  { list: 'added', lead: 'Added', one: 'task', many: 'tasks' },
  { list: 'completed', lead: 'Completed', one: 'task', many: 'tasks' },
  { list: 'renamed', lead: 'Renamed', one: 'task', many: 'tasks' },
  { list: 'changed', lead: 'Changed', one: 'task', many: 'tasks' },
  { list: 'deleted', lead: 'Deleted', one: 'task', many: 'tasks' },
];
/** Past the bound, names go first from the longest list; of two as long, the one earlier here. */
const DROPPED_FIRST: readonly ListName[] = ['asked', 'changed', 'deleted', 'renamed', 'completed', 'added'];
const EARLIER = 'Before that: ';
const LATEST = '; the latest: ';

function noFacts(): Facts {
  const none = { count: 0, named: [] };
  return { earlier: null, asked: none, added: none, completed: none, renamed: none, changed: none, deleted: none };
}

function continued<T>(tally: Tally<T>, more: readonly T[], max: number): Tally<T> {
  return { count: tally.count + more.length, named: [...tally.named, ...more].slice(-max) };
}

function tasksContinued(tally: Tally<TaskChange>, done: readonly TaskChange[], kind: TaskChange['kind']): Tally<TaskChange> {
  const more = done
    .filter((change) => change.kind === kind)
    .map((change) => ({
      ...change,
      title: shortenedAtWord(change.title, QUOTED_MAX_CHARS),
      ...(change.kind === 'renamed' && { previousTitle: shortenedAtWord(change.previousTitle, QUOTED_MAX_CHARS) }),
    }));
  return continued(tally, more, TASKS_NAMED_MAX);
}

function taskInWords(change: TaskChange): string {
  return change.kind === 'renamed'
    ? `task ${change.number} from ${JSON.stringify(change.previousTitle)} to ${JSON.stringify(change.title)}`
    : `task ${change.number} ${JSON.stringify(change.title)}`;
}

function inWords(facts: Facts): string {
  const sentences = facts.earlier === null ? [] : [`${EARLIER}${JSON.stringify(facts.earlier)}.`];
  for (const { list, lead, one, many } of SENTENCES) {
    const { count, named } = facts[list];
    if (count === 0) continue;
    const names = named.map((item) => (typeof item === 'string' ? JSON.stringify(item) : taskInWords(item)));
    const head = `${lead} ${count} ${count === 1 ? one : many}`;
    if (names.length === 0) sentences.push(`${head}.`);
    else sentences.push(`${head}${names.length < count ? LATEST : ': '}${joinedWithAnd(names)}.`);
  }
  return sentences.length === 0 ? NOTHING_TO_SUMMARISE : sentences.join(' ');
}

/** The facts in words within `maxChars`, naming fewer of them until they fit. */
function fitted(facts: Facts, maxChars: number): string {
  let shown = facts;
  for (;;) {
    const text = inWords(shown);
    if (text.length <= maxChars) return text;
    const longest = DROPPED_FIRST.reduce((best, list) => (shown[list].named.length > shown[best].named.length ? list : best));
    const tally = shown[longest];
    // Nothing left to drop: only a bound too small for the counts themselves gets here.
    if (tally.named.length === 0) return shortenedAtWord(text, maxChars);
    shown = { ...shown, [longest]: { count: tally.count, named: tally.named.slice(1) } };
  }
}

/** The facts a foldedSummary text states, or null when `text` is not one. */
function factsOf(text: string): Facts | null {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line === NOTHING_TO_SUMMARISE) return noFacts();
  const reader = new Reader(line);
  let facts = noFacts();
  if (reader.take(EARLIER)) {
    const earlier = reader.quoted();
    if (earlier === null || !reader.take('.')) return null;
    facts = { ...facts, earlier };
  }
  for (const { list, lead, one, many } of SENTENCES) {
    // Sentences are one space apart.
    if (!reader.take(`${reader.atStart() ? '' : ' '}${lead} `)) continue;
    const count = reader.number();
    if (count === null || !(reader.take(` ${many}`) || reader.take(` ${one}`))) return null;
    let named: (string | TaskChange)[] = [];
    if (reader.take(LATEST) || reader.take(': ')) {
      const items = reader.list(() => (list === 'asked' ? reader.quoted() : reader.task(list)));
      if (items === null) return null;
      named = items;
    }
    if (!reader.take('.')) return null;
    facts = { ...facts, [list]: { count, named } };
  }
  return reader.atEnd() ? facts : null;
}

/** Reads a summary's or a Done line's text from the start; each method moves on only when it matches. */
class Reader {
  private at = 0;

  constructor(private readonly text: string) {}

  atStart(): boolean {
    return this.at === 0;
  }

  atEnd(): boolean {
    return this.at === this.text.length;
  }

  take(literal: string): boolean {
    if (!this.text.startsWith(literal, this.at)) return false;
    this.at += literal.length;
    return true;
  }

  number(): number | null {
    const digits = /^\d{1,9}/.exec(this.text.slice(this.at))?.[0];
    if (digits === undefined) return null;
    this.at += digits.length;
    return Number(digits);
  }

  quoted(): string | null {
    const json = /^"(?:[^"\\]|\\.)*"/.exec(this.text.slice(this.at))?.[0];
    if (json === undefined) return null;
    try {
      const value: unknown = JSON.parse(json);
      if (typeof value !== 'string') return null;
      this.at += json.length;
      return value;
    } catch {
      return null;
    }
  }

  /** `task 3 "Buy milk"`, or for a rename `task 3 from "Milk" to "Buy milk"`. */
  task(kind: TaskChange['kind']): TaskChange | null {
    if (!this.take('task ')) return null;
    const number = this.number();
    if (number === null || !this.take(' ')) return null;
    if (kind !== 'renamed') {
      const title = this.quoted();
      return title === null ? null : { kind, number, title };
    }
    if (!this.take('from ')) return null;
    const previousTitle = this.quoted();
    if (previousTitle === null || !this.take(' to ')) return null;
    const title = this.quoted();
    return title === null ? null : { kind, number, title, previousTitle };
  }

  /** Items as joinedWithAnd joins them: "a", "a and b", "a, b and c". */
  list<T>(item: () => T | null): T[] | null {
    const items: T[] = [];
    for (;;) {
      const next = item();
      if (next === null) return null;
      items.push(next);
      if (this.take(' and ')) {
        const last = item();
        if (last === null) return null;
        items.push(last);
        return items;
      }
      if (!this.take(', ')) return items;
    }
  }
}
