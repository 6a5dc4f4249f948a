import { InvalidCursorError } from '../../domain/shared/pagination';
import { isUuid } from '../../domain/shared/uuid';

/** Cursors are opaque to clients: base64url JSON of the last row's sort key. */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** @returns null for no cursor; throws InvalidCursorError for one this code did not make. */
export function decodeCursor<T>(cursor: string | null, shape: (value: unknown) => value is T): T | null {
  if (cursor === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError();
  }
  if (!shape(value)) throw new InvalidCursorError();
  return value;
}

/** A bigint sequence number, as text. */
export function isSeqCursor(value: unknown): value is string {
  return typeof value === 'string' && /^\d{1,18}$/.test(value);
}

export function isTimestamp(value: unknown): value is string {
  return typeof value === 'string' && !Number.isNaN(Date.parse(value));
}

/** `[timestamp, uuid]`: the sort key of rows ordered by time, then id. */
export function isTimeAndIdCursor(value: unknown): value is [string, string] {
  return Array.isArray(value) && value.length === 2 && isTimestamp(value[0]) && isUuid(value[1]);
}
