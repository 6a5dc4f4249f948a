import { friendlyToolError, type ToolErrorWording, UNFIT_REPLY } from './failures';

/**
 * What a person reads is checked: a model's words must be words for a person, not Bridle's
 * insides. A reply is unfit when it is (or mostly is) JSON or holds a fragment of it (`{"x":`,
 * `"key": 1`, `[1,2]`), names an internal code (`TASK_NOT_FOUND`, `OUTREACH.QUOTA_EXCEEDED`,
 * `ECONNREFUSED`), carries schema or validator text (`additionalProperties`, Ajv's "must NOT
 * have more than 200 characters", "must have required property"…), names an identifier (a
 * UUID, a snake_case or camelCase field name: `task_id`, `userId`), a stack trace, or a tool
 * (`add_task`). What the person wrote and their own data may be said back (`echoes`).
 * Every check takes time linear in the text: no pattern here can backtrack over it (no nested
 * or adjacent quantifiers that overlap), and the loops read each character a bounded number
 * of times.
 */

export type ReplyRule = 'json' | 'internal_code' | 'schema_text' | 'identifier' | 'stack_trace' | 'tool_name';

export interface ReplyVocabulary {
  /** The names of the tools the model is offered (their definitions'), never to be shown. */
  readonly toolNames: readonly string[];
  /**
   * Texts from the person or their own data (their message, the values of their tasks as the
   * tools returned them: echoesOf): a word in them may be said back, even when it looks like
   * a code or an identifier ("Fix CI_TIMEOUT" is a title, not an error).
   */
  readonly echoes: readonly string[];
}

export interface ReplyProblem {
  readonly rule: ReplyRule;
  /** The word or phrase that broke the rule, at most FOUND_MAX_CHARS; none for JSON (it may hold the person's data). */
  readonly found?: string;
}

export const FOUND_MAX_CHARS = 40;

/** Phrases of JSON Schema and of validators' messages (Ajv's templates, ajv/lib/vocabularies), lower case. */
const SCHEMA_PHRASES = [
  'additionalproperties',
  'additional properties',
  'unevaluated properties',
  'required property',
  'inputschema',
  'input_schema',
  'parametersjsonschema',
  '$schema',
  'minlength',
  'maxlength',
  'minitems',
  'maxitems',
  'is not an accepted argument',
  'must not have more than',
  'must not have fewer than',
  'must not have duplicate items',
  'must not be valid',
  'must be equal to constant',
  'must be equal to one of the allowed values',
  'must match pattern',
  'must match format',
  'must match a schema in',
  'must match exactly one schema',
  'schema in oneof',
  'must be multiple of',
  'valid item(s)',
  'property name must be valid',
  'keyword validation',
];

/** Ajv's parametrised messages: `must be >= 1`, `must be string`, `must be integer or null`, `must have property 'a' when…`, `must match "then" schema`. */
const VALIDATOR_MESSAGE =
  /\bmust be (?:[<>]=? ?-?\d|(?:string|number|integer|boolean|object|array|null)\b)|\bmust have propert(?:y|ies) ['"]|\bmust match "\w+" schema/;

/** `"type": "object"` and its kin: a schema's or a JSON value's insides. */
const SCHEMA_KEY = /"(?:type|properties|required|items|enum)"\s*:/i;

/** A validator's path into a call: `arguments.title`, `arguments[0]`. */
const ARGUMENT_PATH = /\barguments[.[]\w/i;

/**
 * A fragment of JSON (or of a dict): an object opening on a quoted key (`{"x":`, `{'x':`),
 * a quoted key and its value (`"key": 1`), or a list of two values (`[1,2]`, `["a", "b"]`).
 * Each alternative starts at a bracket or a quote and reads a bounded stretch after it.
 */
const JSON_FRAGMENT = new RegExp(
  [
    /\{\s*["'][^"'\n]{0,80}["']\s*:/.source,
    /"[A-Za-z_$][\w$.-]{0,63}"\s*:\s*(?:["{[\d-]|true\b|false\b|null\b)/.source,
    /\[\s*(?:-?\d+(?:\.\d+)?|"[^"\n]{0,80}"|true|false|null)\s*,\s*(?:["{[\d-]|true\b|false\b|null\b)/.source,
  ].join('|'),
);

/** A UUID, any version: an id of Bridle's (a task's, a conversation's, a decision's). */
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/i;

/**
 * A stack trace's marks: a frame's file position (`(/app/x.js:12:5)`, `x.ts:12`), a module
 * folder, a JavaScript error's name, the engine's words for a bad read, Python's traceback.
 */
const STACK_TRACE = new RegExp(
  [
    /:\d+:\d+\)/.source,
    /\.(?:[cm]?js|tsx?|jsx|py):\d/.source,
    /node_modules\//.source,
    /\b(?:Type|Reference|Syntax|Range|Eval|URI|Aggregate|Internal)Error\b/.source,
    /\bcannot read propert(?:y|ies) of (?:undefined|null)/.source,
    /\btraceback \(most recent call last\)/.source,
    /\bFile "[^"\n]{1,200}", line \d/.source,
  ].join('|'),
  'i',
);

/** The system's error names (errno) that a failed connection or file reports. */
const ERRNO_NAMES = new Set([
  'EACCES',
  'EADDRINUSE',
  'ECONNABORTED',
  'ECONNREFUSED',
  'ECONNRESET',
  'EEXIST',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOENT',
  'ENOTFOUND',
  'EPERM',
  'EPIPE',
  'ETIMEDOUT',
]);

/** A field name of code: snake_case (a letter or digit on each side of an underscore) or camelCase (`userId`, `dueDate`, `taskID`; not `iPhone` or `macOS`). */
const SNAKE_CASE = /[A-Za-z0-9]_[A-Za-z0-9]/;
const CAMEL_CASE = /^[a-z]{2,}(?:[A-Z][a-z0-9]+)*(?:[A-Z][a-z0-9]+|IDs?)$/;

/** Words as far as codes and tool names go: letters, digits, `_`, `.` and `-`. */
const WORD = /[\w.-]+/g;

/** A stretch of text between blanks: where an address or a link is one whole. */
const CHUNK = /\S+/g;

/** A code fence's marks (```json), which say nothing about what they hold. */
const FENCE = /```[a-z]*/gi;

/** The first problem of `text` for a person to read, or null when it reads as words. */
export function replyProblem(text: string, vocabulary: ReplyVocabulary): ReplyProblem | null {
  if (isMostlyJson(text)) return { rule: 'json' };
  const echoes = vocabulary.echoes.join('\n').toLowerCase();
  const json = JSON_FRAGMENT.exec(text)?.[0];
  if (json !== undefined && !echoes.includes(json.toLowerCase())) return { rule: 'json' };
  const schema = schemaPhrase(text, echoes);
  if (schema) return { rule: 'schema_text', found: bounded(schema) };
  const trace = STACK_TRACE.exec(text)?.[0];
  if (trace !== undefined && !echoes.includes(trace.toLowerCase())) return { rule: 'stack_trace', found: bounded(trace) };
  const uuid = UUID.exec(text)?.[0];
  if (uuid !== undefined && !echoes.includes(uuid.toLowerCase())) return { rule: 'identifier', found: uuid };
  const echoed = new Set(words(echoes));
  const tools = new Set(vocabulary.toolNames.map((name) => name.toLowerCase()));
  for (const [word, inAddress] of wordsOfChunks(text)) {
    const key = word.toLowerCase();
    if (echoed.has(key)) continue;
    if (tools.has(key)) return { rule: 'tool_name', found: bounded(word) };
    if (isInternalCode(word) || ERRNO_NAMES.has(word)) return { rule: 'internal_code', found: bounded(word) };
    if (!inAddress && isIdentifier(word)) return { rule: 'identifier', found: bounded(word) };
  }
  return null;
}

/** A snake_case or camelCase field name (`task_id`, `userId`); not an internal code, which is its own rule. */
export function isIdentifier(word: string): boolean {
  return SNAKE_CASE.test(word) || CAMEL_CASE.test(word);
}

/**
 * True when the reply is a JSON object or array, or when one (from its first `{"`, `[{`,
 * `["`… to its last `}` or `]`, or to the end when the reply was cut) fills at least half
 * of it. A bracket in a sentence ("[1] Buy milk", "{draft}") is not JSON.
 */
export function isMostlyJson(text: string): boolean {
  const body = text.replace(FENCE, '').trim();
  if (body === '') return false;
  if (body.startsWith('{') || body.startsWith('[')) {
    try {
      const value: unknown = JSON.parse(body);
      if (typeof value === 'object' && value !== null) return true;
    } catch {
      // Not all of it: maybe most of it (below).
    }
  }
  const start = jsonStart(body);
  if (start < 0) return false;
  const close = Math.max(body.lastIndexOf('}'), body.lastIndexOf(']'));
  const end = close > start ? close + 1 : body.length;
  return (end - start) * 2 >= body.length;
}

/** Where the first `{` or `[` is that opens JSON (or a dict): followed, past spaces, by a quote, a bracket or its close. */
function jsonStart(text: string): number {
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '{' && text[i] !== '[') continue;
    let next = i + 1;
    while (next < text.length && isSpace(text[next])) next++;
    if (next < text.length && `"'{[]}`.includes(text[next])) return i;
    // The spaces just skipped hold no bracket: go on after them.
    i = next - 1;
  }
  return -1;
}

function isSpace(char: string): boolean {
  return char === ' ' || char === '\n' || char === '\r' || char === '\t';
}

/** The first schema phrase in `text` that the person's own words (`echoes`, lower case) do not hold. */
function schemaPhrase(text: string, echoes: string): string | null {
  const lower = text.toLowerCase();
  const found = [
    ...SCHEMA_PHRASES.filter((phrase) => lower.includes(phrase)),
    SCHEMA_KEY.exec(lower)?.[0],
    ARGUMENT_PATH.exec(lower)?.[0],
    VALIDATOR_MESSAGE.exec(lower)?.[0],
  ];
  return found.find((phrase) => phrase !== undefined && !echoes.includes(phrase)) ?? null;
}

/**
 * A code as Bridle's errors name them: SCREAMING_SNAKE with an underscore (`TASK_NOT_FOUND`),
 * or dotted upper-case segments of two characters or more (`HTTP.RATE_LIMITED`, `AUTH.UNAUTHENTICATED`).
 * A shouted word ("ASAP", "TODO") is not a code, nor an abbreviation ("U.S.", "e.g.").
 */
export function isInternalCode(word: string): boolean {
  const segments = word.split('.');
  if (!segments.every(isUpperSegment)) return false;
  return segments.length > 1 ? segments.every((segment) => segment.length >= 2) : segments[0].includes('_');
}

/** Upper-case letters, digits and inner underscores, starting with a letter. */
function isUpperSegment(segment: string): boolean {
  if (!/^[A-Z][A-Z0-9_]*$/.test(segment)) return false;
  return !segment.endsWith('_') && /[A-Z]/.test(segment);
}

/** The words of `text`, without the dots and dashes that end a sentence or start a list item. */
function words(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const word = trimmed(match[0]);
    if (word !== '') found.push(word);
  }
  return found;
}

/**
 * The words of `text`, each with whether it is part of an email address or a link (a stretch
 * between blanks that holds `@` or `://`, or starts with `www.`): there an underscore or a
 * capital in the middle is the address's, not a field name.
 */
function* wordsOfChunks(text: string): Generator<[string, boolean]> {
  for (const chunk of text.matchAll(CHUNK)) {
    const inAddress = chunk[0].includes('@') || chunk[0].includes('://') || chunk[0].toLowerCase().startsWith('www.');
    for (const word of words(chunk[0])) yield [word, inAddress];
  }
}

function trimmed(word: string): string {
  let start = 0;
  let end = word.length;
  while (start < end && (word[start] === '.' || word[start] === '-')) start++;
  while (end > start && (word[end - 1] === '.' || word[end - 1] === '-')) end--;
  return word.slice(start, end);
}

function bounded(text: string): string {
  return text.length <= FOUND_MAX_CHARS ? text : `${text.slice(0, FOUND_MAX_CHARS - 1)}…`;
}

/**
 * The reply to keep once the model's words were checked: unchanged when they pass; else
 * without them: the server's own sentences (a question, a failure) if there are any, or the
 * fallback, which says in words what the turn did.
 */
export function checkedReply(
  reply: { readonly text: string; readonly modelWords: string; readonly serverSentences: readonly string[] },
  vocabulary: ReplyVocabulary,
  fallback: () => string,
): { readonly text: string; readonly problem: ReplyProblem | null } {
  const problem = reply.modelWords === '' ? null : replyProblem(reply.modelWords, vocabulary);
  if (!problem) return { text: reply.text, problem: null };
  return { text: reply.serverSentences.length > 0 ? reply.serverSentences.join('\n\n') : fallback(), problem };
}

/** A tool call as the turn recorded it: enough to say what it did. */
export interface CallInWords {
  readonly tool: string;
  readonly success: boolean;
  readonly result?: unknown;
  readonly error?: { readonly code: string; readonly details?: unknown };
}

/**
 * What a turn's tool calls did, in the server's words, for a reply whose model words were
 * unfit: a sentence per successful call that `describe` can word (`describe` knows the
 * tools' results), then the friendly sentence of the last call when it failed (in the tools' `wording`). Without
 * any: "Done." after a success, else an apology that asks again.
 */
export function toolCallsInWords(
  calls: readonly CallInWords[],
  describe: (call: CallInWords) => string | null,
  wording: ToolErrorWording,
): string {
  const sentences: string[] = [];
  const add = (sentence: string | null) => {
    if (sentence && !sentences.includes(sentence)) sentences.push(sentence);
  };
  for (const call of calls) if (call.success) add(describe(call));
  const last = calls.at(-1);
  if (last && !last.success && last.error) add(friendlyToolError(last.error, wording));
  if (sentences.length > 0) return sentences.join(' ');
  return calls.some((call) => call.success) ? UNFIT_REPLY.DONE : UNFIT_REPLY.NO_WORDS;
}

/** A key whose value is an id (`id`, `taskId`, `user_id`, `ids`): an id is no word of the person's. */
const ID_KEY = /^ids?$|[a-z0-9](?:Ids?|IDs?|_ids?)$/;

/**
 * The person's own words in a value their tools returned (a task's title and description…),
 * as echoes: its strings, not its keys, nor the values of its ids. Iterative and bounded, so a
 * deep value costs a loop, not the stack.
 */
export function dataEchoes(value: unknown): string[] {
  const found: string[] = [];
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current === 'string') found.push(current);
    if (current === null || typeof current !== 'object' || depth >= 32) continue;
    for (const [key, field] of Array.isArray(current) ? current.entries() : Object.entries(current)) {
      if (typeof key === 'string' && ID_KEY.test(key)) continue;
      stack.push({ value: field, depth: depth + 1 });
    }
  }
  return found;
}
