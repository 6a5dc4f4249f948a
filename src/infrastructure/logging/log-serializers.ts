import { headOf, REDACTED, redactText } from '../../domain/audit/redaction';
import { boundedValue, cutMark } from '../../domain/shared/recorded-value';
import { redactUrl } from './url-redaction';

/**
 * What a log line may say about requests and errors. Logs are read by more people than the
 * audit log and kept in more places, so they carry no bodies, no headers, no database
 * parameters and no credentials from a query string.
 */

const MAX_MESSAGE_LENGTH = 500;
const MAX_CAUSES = 3;

/**
 * The most of one text (a request's URL, an error's message, a field of a line) a log line
 * reads: the rest is cut before any pattern runs on it, so a 64 KB word costs what 4 KB do.
 */
export const LOGGED_TEXT_MAX_LENGTH = 4 * 1024;

/** Where a URL may be cut: between its path's segments and its query's parameters. */
const URL_SEPARATOR = /[/?&#]/;

/** `text` cut to LOGGED_TEXT_MAX_LENGTH (at a `separator`, see headOf) before `redact` reads it, the cut marked. */
function redactedHead(text: string, redact: (head: string) => string, separator?: RegExp): string {
  const head = headOf(text, LOGGED_TEXT_MAX_LENGTH, separator);
  return head.length === text.length ? redact(text) : `${redact(head)}${cutMark(text.length - head.length)}`;
}

export interface LoggedError {
  readonly type: string;
  readonly code?: string | number;
  readonly message: string;
  readonly stack?: string;
  readonly cause?: LoggedError;
}

/**
 * An error as its class, its code, a redacted message and the stack's frames. Never its
 * other fields: a failed query carries its SQL parameters (a chat message, a password
 * hash) and the driver's `detail` quotes the offending values.
 */
export function serializeError(error: unknown, depth = 0): LoggedError {
  if (!isErrorLike(error)) return { type: typeof error, message: redactedHead(String(error), redactText).slice(0, MAX_MESSAGE_LENGTH) };
  const { code, stack, cause } = error;
  const frames =
    typeof stack === 'string'
      ? stack
          .split('\n')
          .filter((line) => line.startsWith('    at '))
          .join('\n')
      : '';
  return {
    type: typeof error.type === 'string' ? error.type : (error.constructor?.name ?? 'Error'),
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    message: redactedHead(error.message, redactText).slice(0, MAX_MESSAGE_LENGTH),
    ...(frames ? { stack: frames } : {}),
    ...(cause !== undefined && depth < MAX_CAUSES ? { cause: serializeError(cause, depth + 1) } : {}),
  };
}

interface ErrorLike {
  readonly message: string;
  readonly type?: unknown;
  readonly code?: unknown;
  readonly stack?: unknown;
  readonly cause?: unknown;
  readonly constructor?: { readonly name: string };
}

/**
 * An Error, from any realm, or what pino-http hands a custom `err` serializer: the standard
 * serializer's plain copy, `{type, message, stack, …every other field}`.
 */
function isErrorLike(value: unknown): value is ErrorLike {
  return typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string';
}

/** A path whose last segment is a credential: the signed token of an unsubscribe link. */
const TOKEN_PATH = /^(\/unsubscribe\/)[^/]+$/;

/**
 * The path, with an unsubscribe link's token masked, and the query with secret-named or
 * secret-shaped values masked (`?access_token=…`, `?code=…`): redactUrl. Past
 * LOGGED_TEXT_MAX_LENGTH, cut first, after a `/`, `?`, `&` or `#`.
 */
export function loggableUrl(url: string): string {
  return redactedHead(url, loggableHead, URL_SEPARATOR);
}

function loggableHead(url: string): string {
  const start = url.indexOf('?');
  const path = (start === -1 ? url : url.slice(0, start)).replace(TOKEN_PATH, `$1${REDACTED}`);
  return redactUrl(start === -1 ? path : `${path}${url.slice(start)}`);
}

/** Fields a line's serializers shape themselves, and its message: not cut here. */
const SERIALIZED_FIELDS = new Set(['msg', 'err', 'req', 'res']);
const LOGGED_FIELD_DEPTH = 3;
/** Fields that hold a request's path or URL, wherever a line names one (the error filter's `path`): redacted as `req.url` is (loggableUrl). */
const URL_FIELDS = new Set(['path', 'url']);

/**
 * pino's `formatters.log`: every text of a line's fields bounded (boundedValue), down to
 * LOGGED_FIELD_DEPTH levels of plain objects and lists, so that no value a client chose (a
 * tool name, a path, a header) makes a line longer than its fields. The message and the
 * fields with serializers of their own (`err`, `req`, `res`: bounded there) are left to them;
 * a `path` or `url` is redacted as the request's own URL is, so no credential in a path or
 * query reaches a line through a field of its own.
 */
export function boundedLogFields(line: Record<string, unknown>): Record<string, unknown> {
  const bounded: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(line)) {
    if (SERIALIZED_FIELDS.has(key)) bounded[key] = value;
    else if (URL_FIELDS.has(key) && typeof value === 'string') bounded[key] = boundedValue(loggableUrl(value));
    else bounded[key] = boundedField(value, 1);
  }
  return bounded;
}

function boundedField(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return boundedValue(value);
  if (depth > LOGGED_FIELD_DEPTH || value === null || typeof value !== 'object' || value instanceof Error) return value;
  if (Array.isArray(value)) return value.map((item) => boundedField(item, depth + 1));
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, boundedField(item, depth + 1)]));
}
