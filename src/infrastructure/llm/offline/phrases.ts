import type { TaskPriority } from '../../../domain/todo/task';

/** What a sentence points at. A position counts from 1 in the last list the person was shown. */
export type TaskTarget =
  | { readonly kind: 'number'; readonly number: number }
  | { readonly kind: 'position'; readonly position: number | 'last' }
  | { readonly kind: 'query'; readonly query: string }
  | { readonly kind: 'missing' };

export type DeletionTarget =
  | TaskTarget
  | { readonly kind: 'numbers'; readonly numbers: readonly number[] }
  | { readonly kind: 'scope'; readonly scope: 'completed' | 'all' };

// A pattern that ends a text (`…+$`) starts only where its run starts: tried at every character
// of a long run, it would read the rest of the run each time.
const TRAILING_PUNCTUATION = /(?<![\s.,;:!?…])[\s.,;:!?…]+$/;
const TRAILING_COURTESY = /(?<![,\s])[,\s]+(?:please|pls|plz|thanks|thank you|thx)$/i;
const LEADING_COURTESY = [
  /^(?:please|pls|plz|kindly|ok|okay|so|and|also|now|then|alright|right)\b[,\s]+/i,
  /^(?:can|could|would|will) you(?: please)?\s+/i,
  /^i(?: would|'d)? (?:want|like|love)(?: you)? to\s+/i,
  /^i wanna\s+/i,
  /^(?:let'?s|go ahead and)\s+/i,
  /^(?:hi|hello|hey|hiya|howdy|yo|good (?:morning|afternoon|evening))(?: there)?(?: bridle)?[,!.]?\s+/i,
  /^(?:show|tell|let) me (?:see |know )?(?=what|which|how many)/i,
];

/** Typographic quotes, spacing and closing punctuation do not change what someone asked. */
export function tidy(sentence: string): string {
  let text = sentence.replace(/[‘’]/g, "'").replace(/[“”]/g, '"').replace(/\s+/g, ' ').trim();
  let previous;
  do {
    previous = text;
    text = text.replace(TRAILING_PUNCTUATION, '').replace(TRAILING_COURTESY, '');
  } while (text !== previous);
  return text;
}

/** Drops "please", "can you", "I want to" and a leading "hi," so the request itself comes first. */
export function withoutCourtesy(text: string): string {
  let result = text;
  let previous;
  do {
    previous = result;
    for (const courtesy of LEADING_COURTESY) result = result.replace(courtesy, '');
  } while (result !== previous);
  return result.trim();
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function unquoted(text: string): string {
  const quoted = /^(["'`])(.*)\1$/.exec(text);
  return quoted ? quoted[2].trim() : text;
}

const PRIORITY_WORDS: Readonly<Record<string, TaskPriority>> = {
  high: 'high',
  highest: 'high',
  top: 'high',
  urgent: 'high',
  important: 'high',
  asap: 'high',
  medium: 'medium',
  normal: 'medium',
  mid: 'medium',
  low: 'low',
  lowest: 'low',
};

export function priorityOf(word: string): TaskPriority | undefined {
  return PRIORITY_WORDS[word.toLowerCase()];
}

/**
 * "high priority" may sit anywhere; "urgent" and "important" only at either end, because
 * inside a title ("Read important email") they are usually part of what the task says.
 */
const PRIORITY_MARKERS: readonly RegExp[] = [
  /(?<![\s,;(-])[\s,;(-]*\b(?:with |at |as |in )?(?:a |an )?(?:very |really )?(high|highest|top|medium|normal|mid|low|lowest)[- ]priority\b\)?/i,
  /^(?:an? )?(?:very |really |super )?(urgent|important)\b[\s:,-]*/i,
  /(?<![\s,;:(-])[\s,;:(-]+(?:it'?s |it is |this is |that'?s )?(?:very |really |super )?(urgent|important|asap)\)?$/i,
];

export function withoutPriority(text: string): { readonly text: string; readonly priority?: TaskPriority } {
  for (const marker of PRIORITY_MARKERS) {
    const found = marker.exec(text);
    if (found) {
      const rest = (text.slice(0, found.index) + ' ' + text.slice(found.index + found[0].length)).replace(/\s+/g, ' ');
      return { text: rest.trim(), priority: priorityOf(found[1]) };
    }
  }
  return { text };
}

const TITLE_LEADERS: readonly RegExp[] = [
  /^to (?:my|the) (?:todo |to-do |task )?list\s*(?:[:,-]\s*)?/i,
  /^(?:an? )?(?:new )?(?:task|todo|to-do|item|reminder|entry)\b\s*(?:(?:called|named|titled|saying|that says|to|for|about)\s*)?(?:[:,-]\s*)?/i,
];
const TITLE_TRAILERS: readonly RegExp[] = [
  /(?<!\s)\s+(?:to|on|in|onto) (?:my|the) (?:todo |to-do |task |shopping )?(?:list|tasks|todos|to-dos)$/i,
  TRAILING_COURTESY,
  TRAILING_PUNCTUATION,
];

/** "a task to 'buy milk' to my list, please" → "Buy milk". Empty when nothing is left. */
export function cleanTitle(raw: string): string {
  let title = raw.trim();
  for (const leader of TITLE_LEADERS) title = title.replace(leader, '');
  for (const trailer of TITLE_TRAILERS) title = title.replace(trailer, '');
  title = unquoted(title.trim())
    .replace(/^[\s:,;-]+/, '')
    .replace(TRAILING_PUNCTUATION, '');
  return capitalised(title);
}

export function cleanDescription(raw: string): string {
  return unquoted(raw.trim()).trim();
}

const NUMBER_WORDS: Readonly<Record<string, number>> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
};
const ORDINAL_WORDS: Readonly<Record<string, number>> = {
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
  tenth: 10,
};

const LIST_MENTION = /(?<!\s)\s+(?:from|on|in|off|of) (?:my|the) (?:todo |to-do |task )?(?:list|tasks|todos)$/i;
/** Spaces before a number without `#` only where no word took them (tidy() left single spaces): one way to read a run. */
const NUMBERED = /^(?:the )?(?:(?:task|item|todo|to-do)\s*)?(?:(?:number|no\.?)\s*)?(?:#\s*|(?<!\s)\s+)?(\d{1,10})$/i;
const NUMBERED_IN_WORDS = /^(?:the )?(?:task|item|todo|to-do|number)\s+(?:number\s+)?([a-z]+)$/i;
const ORDINAL =
  /^(?:the )?(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|\d{1,3}(?:st|nd|rd|th))(?: (?:one|task|item|todo|thing))?$/i;
const ABOUT =
  /^(?:the )?(?:task|item|one|todo|to-do|thing|entry)s? (?:about|for|called|named|titled|that says|saying|with|regarding|mentioning) (.+)$/i;
const PRONOUN = /^(?:it|that|this|them|those|these|that one|this one|the task|the one|one)$/i;
/** "the first two", "tasks 2 and 3": one call acts on one task, so these need a question back. */
const SEVERAL =
  /^(?:the )?(?:first|last|next|top|bottom) (?:two|three|four|five|few|\d+)\b|^(?:the )?(?:tasks? |items? )?#?\d+(?:,| and| &)/i;
/** Words that say nothing about which task is meant; the rest are kept in order. */
const FILLER = new Set(['the', 'one', 'task', 'item', 'my', 'that', 'this', 'a', 'an', 'todo', 'to-do']);

function position(word: string): number | 'last' {
  const lower = word.toLowerCase();
  if (lower === 'last') return 'last';
  return ORDINAL_WORDS[lower] ?? Number.parseInt(lower, 10);
}

/** "task 2" / "#2" → number; "the second one" → position; "the milk one" → query "milk". */
export function parseTarget(phrase: string): TaskTarget {
  const text = unquoted(phrase.trim().replace(LIST_MENTION, '').replace(TRAILING_PUNCTUATION, ''));
  const numbered = NUMBERED.exec(text);
  if (numbered) return { kind: 'number', number: Number.parseInt(numbered[1], 10) };
  const inWords = NUMBERED_IN_WORDS.exec(text);
  const wordNumber = inWords ? NUMBER_WORDS[inWords[1].toLowerCase()] : undefined;
  if (wordNumber !== undefined) return { kind: 'number', number: wordNumber };
  const ordinal = ORDINAL.exec(text);
  if (ordinal) return { kind: 'position', position: position(ordinal[1]) };
  if (PRONOUN.test(text) || SEVERAL.test(text)) return { kind: 'missing' };
  const about = ABOUT.exec(text);
  const words = (about ? about[1] : text)
    .split(' ')
    .map((word) => word.replace(/^["'(]+/, '').replace(/(?<!["'),.;:!?])["'),.;:!?]+$/, ''))
    .filter((word) => word.length > 0 && !FILLER.has(word.toLowerCase()));
  return words.length > 0 ? { kind: 'query', query: words.join(' ') } : { kind: 'missing' };
}

const LIST_NOUN = '(?:tasks|todos|to-dos|items|things|ones|entries)';
const COMPLETED_TASKS = new RegExp(
  `^(?:all )?(?:of )?(?:the |my )?(?:completed|finished|done|checked(?: off)?|ticked(?: off)?)(?: ${LIST_NOUN})?$|` +
    `^(?:all |everything |the )?(?:${LIST_NOUN} )?(?:that are|that's|that is|which are|i've|i have) (?:already )?(?:done|completed|finished)$`,
  'i',
);
const ALL_TASKS = new RegExp(
  `^(?:everything|it all|them all|all(?: of them)?|all (?:of )?(?:the |my )?${LIST_NOUN}|` +
    `(?:the |my )?(?:whole |entire )?(?:list|todo list|to-do list|task list)|(?:all )?(?:of )?my ${LIST_NOUN})$`,
  'i',
);
const SEVERAL_NUMBERS =
  /^(?:the )?(?:(?:tasks?|items?|numbers?|todos?)\s*)?#?\d+(?:\s*(?:,\s*and|,|and|&|\+)\s*(?:(?:tasks?|items?|numbers?)\s*)?#?\d+)+$/i;
const NUMBER_RANGE = /^(?:the )?(?:(?:tasks?|items?|numbers?)\s*)?#?(\d+)\s*(?:-|to|through|thru)\s*#?(\d+)$/i;
const MAX_RANGE = 100;

/** Everything parseTarget understands, plus several numbers and "all completed" / "everything". */
export function parseDeletion(phrase: string): DeletionTarget {
  const text = phrase.trim().replace(LIST_MENTION, '').replace(TRAILING_PUNCTUATION, '');
  if (COMPLETED_TASKS.test(text)) return { kind: 'scope', scope: 'completed' };
  if (ALL_TASKS.test(text)) return { kind: 'scope', scope: 'all' };
  const numbers = severalNumbers(text);
  return numbers ? { kind: 'numbers', numbers } : parseTarget(text);
}

/** "tasks 1, 2 and 5", "3 to 6": the numbers, in the order given; null when the phrase names not several. */
export function parseSeveral(phrase: string): number[] | null {
  return severalNumbers(phrase.trim().replace(LIST_MENTION, '').replace(TRAILING_PUNCTUATION, ''));
}

function severalNumbers(text: string): number[] | null {
  if (SEVERAL_NUMBERS.test(text)) {
    const numbers = [...text.matchAll(/\d+/g)].map((found) => Number.parseInt(found[0], 10));
    return [...new Set(numbers)];
  }
  const range = NUMBER_RANGE.exec(text);
  if (range) {
    const from = Number.parseInt(range[1], 10);
    const to = Number.parseInt(range[2], 10);
    if (from < to && to - from < MAX_RANGE) return Array.from({ length: to - from + 1 }, (_, i) => from + i);
  }
  return null;
}
