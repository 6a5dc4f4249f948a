import { cutMark } from '../shared/recorded-value';

/**
 * The one redaction policy: what may never enter the audit log. Applied at write time to
 * every argument and result, whoever writes (chat, MCP clients, outreach).
 *
 * Every pattern here reads hostile text (an MCP argument, a URL, a model's output), so each
 * runs in time linear in what it reads, and what it reads is bounded: a text longer than
 * REDACTED_TEXT_MAX_LENGTH is cut first (docs/security.md#untrusted-text-in-linear-time).
 */
export const REDACTED = '[REDACTED]';

/**
 * The most of one text (a field, a URL, a message) redaction reads; the rest is cut. Above
 * the longest text any tool takes (an email body, 10 000 characters), so only text that
 * would be refused anyway is cut.
 */
export const REDACTED_TEXT_MAX_LENGTH = 16 * 1024;

/** A key whose value is a secret: compared lower-case, without `-` and `_`, by its ending. */
const SECRET_KEY_ENDINGS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'authorization',
  'cookie',
  'cookies',
  'session',
  'credential',
  'credentials',
  'privatekey',
  'signature',
];

const maskWhole = (): string => REDACTED;

/**
 * Secrets recognisable by their shape wherever they appear in a text, each with what it
 * becomes. Each is tried only where its prefix (or, for a URL's password, `://…:`) is, and a
 * failed attempt reads at most the run after it, which no other attempt of the shape reads
 * again: the text is read a bounded number of times. The JWT's shape needs help for that.
 */
const SECRET_SHAPES: readonly (readonly [RegExp, (match: string, secret?: string) => string])[] = [
  // Authorization header values, 8 characters or more: "Bearer of bad news" stays, while a
  // word that could be a token is masked (an audit log errs on the side of masking).
  [/\b[Bb]earer\s+[A-Za-z0-9._~+/-]{8,}=*/g, maskWhole],
  [/\bBasic\s+[A-Za-z0-9+/]{8,}=*/g, maskWhole],
  [/\bsk-[A-Za-z0-9_-]{8,}/g, maskWhole], // OpenAI-style API keys (sk-…, sk-proj-…)
  [/\bAIza[0-9A-Za-z_-]{30,}/g, maskWhole], // Google API keys
  // JWTs. A run of [\w-] has a word boundary at each `-`, so `eyJ-eyJ-…` offers an attempt
  // every 4 characters; when one fails, every later start in the same run reaches the same
  // end and fails too, so the second alternative takes the rest of the run, left as it is.
  [/\b(eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*)|\beyJ[A-Za-z0-9_-]*/g, (match, jwt) => (jwt ? REDACTED : match)],
  [/\b(?:ghp|gho|ghu|ghs|github_pat)_[A-Za-z0-9_]{16,}/g, maskWhole], // GitHub tokens
  [/\bbridle_(?:pat|oat|ort)_[A-Za-z0-9_-]{16,}/g, maskWhole], // Bridle's own access and refresh tokens
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, maskWhole], // Slack tokens
  [/\bAKIA[0-9A-Z]{16}\b/g, maskWhole], // AWS access key ids
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, maskWhole],
  [/\b(?:li_at|JSESSIONID|session(?:id)?|sid)=[^;\s]{6,}/gi, maskWhole], // cookies
  [/(?<=[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+(?=@)/gi, maskWhole], // the password in a URL's user info
];

/**
 * `password=…`, `"api_key": "…"`, `token: …` in text that is not JSON (a model's broken
 * arguments, an error message): the value after a secret-named key, quoted or bare. It
 * starts at the key's secret-naming ending, not at the key's first character: the text
 * before the ending is kept as it is either way, and a pattern starting with `[\w-]*` would
 * scan a long word once per character of it (quadratic: a 62 KB argument took seconds).
 */
const SECRET_ASSIGNMENT = new RegExp(
  `((?:${SECRET_KEY_ENDINGS.map((ending) => ending.split('').join('[-_]?')).join('|')})["']?\\s*[:=]\\s*)` +
    `("(?:[^"\\\\]|\\\\.)*"?|'(?:[^'\\\\]|\\\\.)*'?|[^\\s,;&}\\]]+)`,
  'gi',
);

const MAX_DEPTH = 32;

export function isSecretKey(key: string): boolean {
  const normal = key.toLowerCase().replace(/[-_\s]/g, '');
  return SECRET_KEY_ENDINGS.some((ending) => normal.endsWith(ending));
}

/** What a cut may end after: no secret's shape runs across one (a URL's query parameters are masked one by one). */
const TEXT_SEPARATOR = /[\s&?#]/;

/**
 * The start of `text` that a pattern may read: all of it when it fits in `maxLength`, else at
 * most `maxLength` characters ending just after a `separator` (by default whitespace, `&`, `?`, `#`).
 * Never inside a word, so a secret the cut runs through is dropped whole rather than kept too
 * short for its shape to mask it (`sk-abc`); one long word is dropped entirely.
 */
export function headOf(text: string, maxLength: number, separator: RegExp = TEXT_SEPARATOR): string {
  if (text.length <= maxLength) return text;
  let end = maxLength;
  while (end > 0 && !separator.test(text[end - 1])) end--;
  return text.slice(0, end);
}

/** `text` with secret-shaped parts and the values of secret-named keys masked; past REDACTED_TEXT_MAX_LENGTH, cut first. */
export function redactText(text: string): string {
  const head = headOf(text, REDACTED_TEXT_MAX_LENGTH);
  const masked = maskSecrets(head);
  return head.length === text.length ? masked : `${masked}${cutMark(text.length - head.length)}`;
}

/**
 * The patterns of redactText on the whole of `text`, however long: for the benchmark that
 * shows each runs in linear time (bench/untrusted-text.ts). Everything else calls redactText.
 */
export function maskSecrets(text: string): string {
  const shapesMasked = SECRET_SHAPES.reduce((masked, [shape, mask]) => masked.replace(shape, mask), text);
  return shapesMasked.replace(SECRET_ASSIGNMENT, (_match, assignment: string, value: string) =>
    // Already masked by a shape above (the bare match stops short of its closing bracket).
    value.replace(/^["']/, '').startsWith(REDACTED.slice(0, -1)) ? `${assignment}${value}` : `${assignment}${quoted(value)}`,
  );
}

/** The mask, in the value's own quotes, so masked JSON-ish text keeps its shape. */
function quoted(value: string): string {
  const quote = value[0] === '"' || value[0] === "'" ? value[0] : '';
  return `${quote}${REDACTED}${quote}`;
}

/** A copy of `value` with secret-named fields and secret-shaped text masked. */
export function redact<T>(value: T): T {
  return redactValue(value, 0) as T;
}

function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [
      key,
      isSecretKey(key) && field !== null && field !== undefined && field !== '' ? REDACTED : redactValue(field, depth + 1),
    ]),
  );
}
