/**
 * The one redaction policy: what may never enter the audit log. Applied at write time to
 * every argument and result, whoever writes (chat, MCP clients, outreach).
 */
export const REDACTED = '[REDACTED]';

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

/** Secrets recognisable by their shape wherever they appear in a text. */
const SECRET_SHAPES: readonly RegExp[] = [
  // Authorization header values, 8 characters or more: "Bearer of bad news" stays, while a
  // word that could be a token is masked (an audit log errs on the side of masking).
  /\b[Bb]earer\s+[A-Za-z0-9._~+/-]{8,}=*/g,
  /\bBasic\s+[A-Za-z0-9+/]{8,}=*/g,
  /\bsk-[A-Za-z0-9_-]{8,}/g, // OpenAI-style API keys (sk-…, sk-proj-…)
  /\bAIza[0-9A-Za-z_-]{30,}/g, // Google API keys
  /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, // JWTs
  /\b(?:ghp|gho|ghu|ghs|github_pat)_[A-Za-z0-9_]{16,}/g, // GitHub tokens
  /\bbridle_(?:pat|oat|ort)_[A-Za-z0-9_-]{16,}/g, // Bridle's own access and refresh tokens
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, // Slack tokens
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key ids
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\b(?:li_at|JSESSIONID|session(?:id)?|sid)=[^;\s]{6,}/gi, // cookies
  /(?<=[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+(?=@)/gi, // the password in a URL's user info
];

/**
 * `password=…`, `"api_key": "…"`, `token: …` in text that is not JSON (a model's broken
 * arguments, an error message): the value after a secret-named key, quoted or bare.
 */
const SECRET_ASSIGNMENT = new RegExp(
  `(["']?[\\w-]*(?:${SECRET_KEY_ENDINGS.map((ending) => ending.split('').join('[-_]?')).join('|')})["']?\\s*[:=]\\s*)` +
    `("(?:[^"\\\\]|\\\\.)*"?|'(?:[^'\\\\]|\\\\.)*'?|[^\\s,;&}\\]]+)`,
  'gi',
);

const MAX_DEPTH = 32;

export function isSecretKey(key: string): boolean {
  const normal = key.toLowerCase().replace(/[-_\s]/g, '');
  return SECRET_KEY_ENDINGS.some((ending) => normal.endsWith(ending));
}

export function redactText(text: string): string {
  const shapesMasked = SECRET_SHAPES.reduce((masked, shape) => masked.replace(shape, REDACTED), text);
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
