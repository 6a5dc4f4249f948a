import type { MigrationInterface, QueryRunner } from 'typeorm';
import { CANONICAL_FIELDS } from './1767139200000-turn-record';

/** The audit row's canonical text until this migration: every column but `policy` (1767139200000). */
const CANONICAL_BEFORE = `jsonb_build_object(${CANONICAL_FIELDS})
  || CASE WHEN r.error_message IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('errorMessage', r.error_message) END`;

/**
 * audit_log.policy: what the policy in force said of the call (docs/policies.md), as
 * `{version, rule, effect}`: the version, the rule that decided it (null when none matched and
 * the call was allowed) and its effect; for a call a limit stopped, that limit's rule. Null on
 * rows that are no tool call's (admin reads, account changes) and on rows from before.
 *
 * It is part of the hashed row only when it is set, so every row written before keeps its
 * canonical text and its hash, as error_message did (1767139200000). Undone, the column is
 * gone and the rows that had one no longer verify.
 */
export class ToolCallPolicy1767225600000 implements MigrationInterface {
  name = 'ToolCallPolicy1767225600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE audit_log ADD COLUMN policy jsonb`);
    await db.query(`
      CREATE OR REPLACE FUNCTION audit_row_canonical(r audit_log) RETURNS text LANGUAGE sql STABLE AS $$
        SELECT (${CANONICAL_BEFORE}
          || CASE WHEN r.policy IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('policy', r.policy) END)::text
      $$`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE OR REPLACE FUNCTION audit_row_canonical(r audit_log) RETURNS text LANGUAGE sql STABLE AS $$
        SELECT (${CANONICAL_BEFORE})::text
      $$`);
    await db.query(`ALTER TABLE audit_log DROP COLUMN policy`);
  }
}
