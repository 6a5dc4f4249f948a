import { InvalidCursorError } from '../../domain/shared/pagination';

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
