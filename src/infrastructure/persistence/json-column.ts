import { createHash } from 'node:crypto';
import { redact } from '../../domain/audit/redaction';
import { storableValue } from '../../domain/shared/untrusted-input';

/** The most one JSON column of a record (arguments, a result, a turn's tool calls) may hold. */
export const JSON_COLUMN_MAX_BYTES = 64 * 1024;

/**
 * A value as a jsonb parameter, whoever wrote it (a person, a client, a model): secrets
 * masked by the domain's one policy, NUL and lone surrogates replaced (PostgreSQL refuses
 * them in jsonb), and past the size limit only its size and SHA-256 kept.
 */
export function jsonColumn(value: unknown): string {
  const json = JSON.stringify(storableValue(redact(value))) ?? 'null';
  const bytes = Buffer.byteLength(json);
  if (bytes <= JSON_COLUMN_MAX_BYTES) return json;
  return JSON.stringify({ omitted: 'too large', bytes, sha256: createHash('sha256').update(json).digest('hex') });
}
