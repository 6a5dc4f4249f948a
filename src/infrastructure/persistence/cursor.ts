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

/**
 * `timestamptz::text` as PostgreSQL writes it (ISO DateStyle): `2026-11-22 15:20:00.123456+00`.
 * Checked field by field, not with `Date.parse`, which takes "1" and "2026-02-30" while
 * PostgreSQL refuses them: a forged cursor must be a 400, never a failed query.
 */
const PG_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?[+-](\d{2})(?::(\d{2}))?$/;

export function isTimestamp(value: unknown): value is string {
  const match = typeof value === 'string' ? PG_TIMESTAMP.exec(value) : null;
  if (!match) return false;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = match.slice(1).map((part) => Number(part ?? 0));
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    year >= 1 &&
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    hour < 24 &&
    minute < 60 &&
    second < 60 &&
    offsetHours <= 15 &&
    offsetMinutes < 60
  );
}

/** `[timestamp, uuid]`: the sort key of rows ordered by time, then id. */
export function isTimeAndIdCursor(value: unknown): value is [string, string] {
  return Array.isArray(value) && value.length === 2 && isTimestamp(value[0]) && isUuid(value[1]);
}
