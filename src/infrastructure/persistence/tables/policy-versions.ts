import { z } from 'zod';
import type { PolicyDocument } from '../../../domain/policy/policy';
import type { PolicyVersionSummary, StoredPolicyVersion } from '../../../application/policy/ports/policy-store.port';
import { raw } from '../sql';

/** A version's columns, named as StoredPolicyVersion names them. */
export const POLICY_VERSION_COLUMNS = raw(
  `version, document, people, author_id AS "authorId", author_email AS "authorEmail", reason, created_at AS "createdAt"`,
);

/** A summary's columns: the rule count instead of the rules. */
export const POLICY_VERSION_SUMMARY_COLUMNS = raw(
  `version, jsonb_array_length(document -> 'rules') AS rules, author_id AS "authorId", author_email AS "authorEmail", reason, created_at AS "createdAt"`,
);

/**
 * The document as stored: readPolicy read it before it was written, and the table checks that
 * `rules` is a list; the rules themselves are not read again here (StoredPolicy re-reads them
 * against the tools of the running code, which may have changed since).
 */
const DOCUMENT = z.custom<PolicyDocument>(
  (value) => typeof value === 'object' && value !== null && Array.isArray((value as { rules?: unknown }).rules),
  'document must be {rules: [...]}',
);

export const POLICY_VERSION_ROW = z.object({
  version: z.number().int().positive(),
  document: DOCUMENT,
  people: z.record(z.string(), z.string()),
  authorId: z.string(),
  authorEmail: z.string(),
  reason: z.string(),
  createdAt: z.date(),
}) satisfies z.ZodType<StoredPolicyVersion>;

export const POLICY_VERSION_SUMMARY_ROW = z.object({
  version: z.number().int().positive(),
  rules: z.number().int().nonnegative(),
  authorId: z.string(),
  authorEmail: z.string(),
  reason: z.string(),
  createdAt: z.date(),
}) satisfies z.ZodType<PolicyVersionSummary>;
