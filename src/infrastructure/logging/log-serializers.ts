import { isSecretKey, REDACTED, redactText } from '../../domain/audit/redaction';

/**
 * What a log line may say about requests and errors. Logs are read by more people than the
 * audit log and kept in more places, so they carry no bodies, no headers, no database
 * parameters and no credentials from a query string.
 */

const MAX_MESSAGE_LENGTH = 500;
const MAX_CAUSES = 3;

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
  if (!isErrorLike(error)) return { type: typeof error, message: redactText(String(error)).slice(0, MAX_MESSAGE_LENGTH) };
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
    message: redactText(error.message).slice(0, MAX_MESSAGE_LENGTH),
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
 * secret-shaped values masked (`?access_token=…`).
 */
export function loggableUrl(url: string): string {
  const start = url.indexOf('?');
  const path = (start === -1 ? url : url.slice(0, start)).replace(TOKEN_PATH, `$1${REDACTED}`);
  if (start === -1) return redactText(path);
  const query = new URLSearchParams(url.slice(start + 1));
  const shown = [...query].map(([key, value]) => `${key}=${isSecretKey(key) ? REDACTED : redactText(value)}`);
  return `${redactText(path)}?${shown.join('&')}`;
}
