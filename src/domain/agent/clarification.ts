import { isIdentityField, type ToolDefinition } from './tools';

/**
 * What a clarifying question is, by what it asks rather than by how it opens. A turn that
 * changed nothing asks the person for something a call needs when one of its questions:
 * - offers a choice among candidates the model saw this turn (the person's tasks, as tools
 *   returned them): its sentence names two or more of them ("Should I mark task 2 or task 3
 *   as done?"), or it asks "which" after the candidates were named ("I found 'Call mum' and
 *   'Call the bank'. Which one…?");
 * - asks for the value of a tool's argument: a what/which/how question about a field of a
 *   tool on offer ("I need the new title. What should it be?", "What priority should it
 *   have?"), or a request to tell ("Could you provide more details about …?");
 * - asks what the person meant ("Which task do you mean?", "Are you referring to …?");
 * - asks which one, unless it is a wish that names nothing a tool does ("Which one should I
 *   complete?", "Which task would you like me to delete?").
 * An offer is none of these: "Which task would you like to work on?", "Anything else?",
 * "Would you like to add a description?". Quoted examples ('what's left?') are not questions.
 * Each test reads a bounded number of characters per character of the reply: no pattern here
 * can backtrack over it.
 */

/** Something a tool returned that the person may be asked to choose: a task, by number and title. */
export interface SeenItem {
  readonly number: number | null;
  readonly title: string;
}

/** What the tools on offer take and do: their argument names in words ("title"), and their actions ("delete"). */
export interface ToolVocabulary {
  readonly fields: readonly string[];
  readonly actions: readonly string[];
}

export const NO_VOCABULARY: ToolVocabulary = { fields: [], actions: [] };

/** The argument names (identity fields aside) and actions (a name's first word) of these tools. */
export function toolVocabulary(tools: readonly ToolDefinition[]): ToolVocabulary {
  const fields = new Set<string>();
  const actions = new Set<string>();
  for (const tool of tools) {
    actions.add(tool.name.split('_')[0].toLowerCase());
    for (const name of Object.keys(tool.inputSchema.properties ?? {})) {
      if (!isIdentityField(name)) fields.add(name.replace(/_/g, ' ').toLowerCase());
    }
  }
  return { fields: [...fields], actions: [...actions] };
}

const MAX_ITEMS = 500;
const MAX_DEPTH = 6;

/** The items (objects with a title, and a number when they have one) in these values; a string is read as JSON. */
export function itemsIn(values: readonly unknown[]): SeenItem[] {
  const items = new Map<string, SeenItem>();
  const visit = (value: unknown, depth: number): void => {
    if (items.size >= MAX_ITEMS || depth > MAX_DEPTH || typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) {
      for (const element of value) visit(element, depth + 1);
      return;
    }
    const record = value as Readonly<Record<string, unknown>>;
    if (typeof record.title === 'string' && record.title.trim() !== '') {
      const number = typeof record.number === 'number' && Number.isInteger(record.number) ? record.number : null;
      const title = record.title.trim();
      items.set(`${number ?? ''}:${title}`, { number, title });
    }
    for (const field of Object.values(record)) visit(field, depth + 1);
  };
  for (const value of values) visit(typeof value === 'string' ? parsedJson(value) : value, 0);
  return [...items.values()];
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** "task 2", "tasks 2 or 3", "#2", "number 2": the numbers a text names. */
const NUMBER_MENTION = /\b(?:tasks?|items?|numbers?)\s*#?(\d{1,6})((?:\s*(?:,|\bor\b|\band\b|&)\s*#?\d{1,6}\b)*)|#(\d{1,6})\b/gi;

function numbersNamed(text: string): Set<number> {
  const numbers = new Set<number>();
  for (const found of text.matchAll(NUMBER_MENTION)) {
    for (const digits of `${found[1] ?? ''} ${found[2] ?? ''} ${found[3] ?? ''}`.match(/\d+/g) ?? []) {
      numbers.add(Number.parseInt(digits, 10));
    }
  }
  return numbers;
}

const isWordChar = (char: string | undefined) => char !== undefined && /[\p{L}\p{N}]/u.test(char);

/** True when `lowered` holds `word` (lower case) as a whole word, or its plural. */
function hasWord(lowered: string, word: string): boolean {
  if (word === '') return false;
  for (let at = lowered.indexOf(word); at !== -1; at = lowered.indexOf(word, at + 1)) {
    let end = at + word.length;
    if (lowered[end] === 's') end += isWordChar(lowered[end + 1]) ? 0 : 1;
    if (!isWordChar(lowered[at - 1]) && !isWordChar(lowered[end])) return true;
  }
  return false;
}

/** The seen items a text names: by number ("task 2", "#2") or by title (three characters or more, as a whole). */
export function itemsNamed(text: string, seen: readonly SeenItem[]): SeenItem[] {
  if (seen.length === 0) return [];
  const numbers = numbersNamed(text);
  const lowered = text.toLowerCase();
  return seen.filter(
    (item) => (item.number !== null && numbers.has(item.number)) || (item.title.length >= 3 && hasWord(lowered, item.title.toLowerCase())),
  );
}

/** A phrase in quotes, like 'what's left?': an example to say, not a question asked (see maskQuoted). */
const QUOTED = /(^|[\s(:])['"‘“](?:(.*?['"’”])(?=[\s.,;:!?)]|$)|.*)/gu;

/**
 * The text with its quoted example phrases blanked out, each character for a space, so that
 * positions still match the text. An opening quote with no closing one after it on its line
 * is kept as it is, with the rest of the line: the line is read once, not once per quote.
 */
export function maskQuoted(text: string): string {
  return text.replace(QUOTED, (match, before: string, quoted?: string) =>
    quoted === undefined ? match : before + ' '.repeat(match.length - before.length),
  );
}

/** One question of a reply: the sentences from the previous question (or the start) to its "?". */
interface Question {
  /** The sentences as written, the last one the asking sentence. */
  readonly sentences: readonly string[];
  /** The same, quoted examples blanked, lower case. */
  readonly masked: readonly string[];
  /** Where each sentence starts in the reply, and where the question ends. */
  readonly starts: readonly number[];
  readonly end: number;
}

/** Where a sentence ends in a question: after ".", "!" (not a list's "2.") before a space, or a line break. */
function sentenceEnds(masked: string): number[] {
  const ends: number[] = [];
  for (let i = 0; i < masked.length; i++) {
    const char = masked[i];
    if (char === '\n' || ((char === '.' || char === '!') && /\s/.test(masked[i + 1] ?? '') && !/\d/.test(masked[i - 1] ?? ''))) {
      ends.push(i + 1);
    }
  }
  return ends;
}

function questionsIn(text: string): Question[] {
  const masked = maskQuoted(text);
  const questions: Question[] = [];
  let start = 0;
  for (let mark = masked.indexOf('?'); mark !== -1; mark = masked.indexOf('?', mark + 1)) {
    const cuts = [start, ...sentenceEnds(masked.slice(start, mark)).map((end) => start + end), mark + 1];
    const question = { sentences: [] as string[], masked: [] as string[], starts: [] as number[], end: mark + 1 };
    for (let i = 0; i < cuts.length - 1; i++) {
      const sentence = text.slice(cuts[i], cuts[i + 1]);
      if (sentence.trim() === '') continue;
      question.sentences.push(sentence.trim());
      question.masked.push(
        masked
          .slice(cuts[i], cuts[i + 1])
          .trim()
          .toLowerCase(),
      );
      question.starts.push(cuts[i] + sentence.length - sentence.trimStart().length);
    }
    questions.push(question);
    start = mark + 1;
  }
  return questions;
}

/** Asks what the person meant by their request. */
const ASKS_MEANING = /\b(?:(?:do|did) you mean|you meant|referring|talking about|rephrase|clarify)\b/;
/** Asks the person to tell something. */
const ASKS_TO_TELL = /\b(?:could|can|would|will) you (?:please )?(?:provide|give|tell|share|specify|say|let me know|clarify|confirm)\b/;
/** A question asking for a value: what, which or how first, after at most two leading words ("So, what…"). */
const ASKS_WHAT = /^(?:[a-z']+,? ){0,2}(?:what|which|how)\b/;
const ASKS_WHICH = /^(?:[a-z']+,? ){0,2}which\b/;
/** A question of the person's wishes: an offer, unless it is about something a tool does. */
const WISH = /\b(?:(?:would|do|did) you (?:like|want|wish|prefer)|you(?:'d| would) (?:like|want)|(?:can|may|shall) i)\b/;

/** How far back the question goes: its asking sentence (1), with the one before it (2), or from the question's start. */
type Reach = 1 | 2 | 'question';

function clarifies(question: Question, seen: readonly SeenItem[], vocabulary: ToolVocabulary): Reach | null {
  const asking = question.sentences.at(-1) ?? '';
  const askingMasked = question.masked.at(-1) ?? '';
  const previousMasked = question.masked.at(-2) ?? '';
  if (itemsNamed(asking, seen).length >= 2) return 1;
  if (ASKS_MEANING.test(askingMasked) || ASKS_TO_TELL.test(askingMasked)) return 1;
  const wish = WISH.test(askingMasked);
  if (ASKS_WHICH.test(askingMasked) && (!wish || vocabulary.actions.some((action) => hasWord(askingMasked, action)))) return 1;
  if (ASKS_WHAT.test(askingMasked)) {
    if (vocabulary.fields.some((field) => hasWord(askingMasked, field))) return 1;
    if (vocabulary.fields.some((field) => hasWord(previousMasked, field))) return 2;
    if (ASKS_WHICH.test(askingMasked) && itemsNamed(question.sentences.join(' '), seen).length >= 2) return 'question';
  }
  return null;
}

/**
 * The last question of `text` that asks for something a call needs (see above: the question a
 * reply ends on is the one to answer), as written and trimmed: its asking sentence, or as far
 * back as the question reaches; null when none does.
 */
export function clarifyingQuestion(text: string, seen: readonly SeenItem[], vocabulary: ToolVocabulary): string | null {
  for (const question of questionsIn(text).reverse()) {
    const reach = clarifies(question, seen, vocabulary);
    if (reach === null) continue;
    const from = reach === 'question' ? question.starts[0] : question.starts.at(-reach);
    return text.slice(from ?? question.starts[0], question.end);
  }
  return null;
}

/** The last question of `text` (its asking sentence), quoted examples aside; null when it asks none. */
export function lastQuestion(text: string): string | null {
  return questionsIn(text).at(-1)?.sentences.at(-1) ?? null;
}
