import type { MigrationInterface, QueryRunner } from 'typeorm';
import { CANONICAL_FIELDS } from './1767139200000-turn-record';

/** The audit row's canonical text until this migration (1767225600000): what every row written before still hashes. */
const CANONICAL_BEFORE = `jsonb_build_object(${CANONICAL_FIELDS})
  || CASE WHEN r.error_message IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('errorMessage', r.error_message) END
  || CASE WHEN r.policy IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('policy', r.policy) END`;

/** The public fields of a row written from this migration on: all but arguments, result and errorMessage. */
const PUBLIC_FIELDS = `
  'seq', r.seq,
  'createdAt', to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
  'source', r.source,
  'actorId', r.actor_id,
  'conversationId', r.conversation_id,
  'campaignId', r.campaign_id,
  'outreachTaskId', r.outreach_task_id,
  'decisionId', r.decision_id,
  'tool', r.tool,
  'status', r.status,
  'errorCode', r.error_code,
  'durationMs', r.duration_ms,
  'securityEvents', r.security_events,
  'pendingSeq', r.pending_seq`;

/** A row of the new form: it was given a salt when written (or its commitment kept when erased). */
const COMMITTED = `(r.personal_salt IS NOT NULL OR r.personal_commitment IS NOT NULL)`;

/** The columns an erasure empties, and the columns it must leave as they were. */
const PUBLIC_COLUMNS = [
  'seq',
  'created_at',
  'source',
  'actor_id',
  'conversation_id',
  'campaign_id',
  'outreach_task_id',
  'decision_id',
  'tool',
  'status',
  'error_code',
  'duration_ms',
  'security_events',
  'pending_seq',
  'policy',
];

/** Audit rows younger than this are never deleted, whatever the setting (EU AI Act Art. 19: at least six months). */
export const AUDIT_RETENTION_FLOOR = `interval '6 months'`;

/**
 * Erasure that leaves the chain whole, and retention behind a checkpoint
 * (docs/decisions/0017-erasure-and-retention.md).
 *
 * - **Commitments.** A row written from now on gets `personal_salt` (a random UUID, the column's
 *   default, so the appender is unchanged). Its canonical text, which the chain hashes, holds its
 *   public fields and `personal`: `sha256(salt ‖ {arguments, result, errorMessage})`, not the
 *   personal fields themselves. Rows written before keep their canonical text and their hash.
 * - **Erasure** is the one UPDATE the table accepts: it empties `arguments` (to `{}`), `result`,
 *   `error_message` and the salt, keeps every public column, and stamps `erased_by` (who) and
 *   `erased_at` (when). On a row of the new form it must keep the commitment
 *   (`personal_commitment`), so its canonical text, and its link, stay exactly as they were. A
 *   row from before is marked erased and keeps no commitment: verify accepts its stored link.
 * - **Pruning**: a row may be deleted only when its link lies before a pruning horizon
 *   (`audit_pruned`, each one a checkpoint's position, checked on insert) and it is older than six months by the
 *   database's clock. Its link and every checkpoint stay.
 */
export class AuditErasure1768060800000 implements MigrationInterface {
  name = 'AuditErasure1768060800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE audit_log ADD COLUMN personal_salt uuid, ADD COLUMN personal_commitment char(64), ADD COLUMN erased_by uuid, ADD COLUMN erased_at timestamptz`,
    );
    // Set after the column exists: rows already there keep no salt (their hash covers their fields).
    await db.query(`ALTER TABLE audit_log ALTER COLUMN personal_salt SET DEFAULT gen_random_uuid()`);
    await db.query(`
      CREATE FUNCTION audit_personal_commitment(r audit_log) RETURNS char(64) LANGUAGE sql STABLE AS $$
        SELECT encode(sha256(convert_to(r.personal_salt::text
          || jsonb_build_object('arguments', r.arguments, 'result', r.result, 'errorMessage', r.error_message)::text, 'UTF8')), 'hex')
      $$`);
    await db.query(`
      CREATE OR REPLACE FUNCTION audit_row_canonical(r audit_log) RETURNS text LANGUAGE sql STABLE AS $$
        SELECT (CASE WHEN ${COMMITTED}
          THEN jsonb_build_object(${PUBLIC_FIELDS}, 'personal', coalesce(r.personal_commitment, audit_personal_commitment(r)))
            || CASE WHEN r.policy IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('policy', r.policy) END
          ELSE ${CANONICAL_BEFORE} END)::text
      $$`);
    await db.query(`
      CREATE TABLE audit_pruned (
        position bigint PRIMARY KEY,
        pruned_at timestamptz NOT NULL DEFAULT now()
      )`);
    // A horizon is a checkpoint's position. Checked by a trigger, not a foreign key: a key would
    // make TRUNCATE of audit_checkpoints fail on the key, before its append-only trigger says why.
    await db.query(`
      CREATE FUNCTION audit_pruned_at_checkpoint() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM audit_checkpoints WHERE position = NEW.position) THEN
          RAISE EXCEPTION 'audit_pruned: % is no checkpoint''s position', NEW.position USING ERRCODE = 'foreign_key_violation';
        END IF;
        RETURN NEW;
      END $$`);
    await db.query(
      `CREATE TRIGGER audit_pruned_at_checkpoint BEFORE INSERT ON audit_pruned FOR EACH ROW EXECUTE FUNCTION audit_pruned_at_checkpoint()`,
    );
    await db.query(
      `CREATE TRIGGER audit_pruned_no_truncate BEFORE TRUNCATE ON audit_pruned FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change()`,
    );
    await db.query(
      `CREATE TRIGGER audit_pruned_append_only BEFORE UPDATE OR DELETE ON audit_pruned FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change()`,
    );
    const unchanged = PUBLIC_COLUMNS.map((column) => `NEW.${column} IS NOT DISTINCT FROM OLD.${column}`).join(' AND ');
    await db.query(`
      CREATE FUNCTION audit_log_erase_or_prune() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND OLD.erased_at IS NULL AND NEW.erased_at IS NOT NULL AND NEW.erased_by IS NOT NULL
           AND ${unchanged}
           AND NEW.arguments = '{}'::jsonb AND NEW.result IS NULL AND NEW.error_message IS NULL AND NEW.personal_salt IS NULL
           AND (CASE WHEN OLD.personal_salt IS NULL THEN NEW.personal_commitment IS NOT DISTINCT FROM OLD.personal_commitment
                ELSE NEW.personal_commitment = audit_personal_commitment(OLD) END) THEN
          RETURN NEW;
        END IF;
        IF TG_OP = 'DELETE' AND OLD.created_at < now() - ${AUDIT_RETENTION_FLOOR}
           AND EXISTS (SELECT 1 FROM audit_chain c WHERE c.seq = OLD.seq AND c.position < (SELECT max(position) FROM audit_pruned)) THEN
          RETURN OLD;
        END IF;
        RAISE EXCEPTION 'audit_log is append-only: % is refused', TG_OP USING ERRCODE = 'insufficient_privilege';
      END $$`);
    await db.query(`DROP TRIGGER audit_log_append_only ON audit_log`);
    await db.query(
      `CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_erase_or_prune()`,
    );
    // Finding the rows of a person or a lead: by actor (audit_log_actor_idx) and by task.
    await db.query(`CREATE INDEX audit_log_outreach_task_idx ON audit_log (outreach_task_id) WHERE outreach_task_id IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX audit_log_outreach_task_idx`);
    await db.query(`DROP TRIGGER audit_log_append_only ON audit_log`);
    await db.query(
      `CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change()`,
    );
    await db.query(`DROP FUNCTION audit_log_erase_or_prune()`);
    await db.query(`DROP TABLE audit_pruned`);
    await db.query(`DROP FUNCTION audit_pruned_at_checkpoint()`);
    await db.query(`
      CREATE OR REPLACE FUNCTION audit_row_canonical(r audit_log) RETURNS text LANGUAGE sql STABLE AS $$
        SELECT (${CANONICAL_BEFORE})::text
      $$`);
    await db.query(`DROP FUNCTION audit_personal_commitment(audit_log)`);
    await db.query(
      `ALTER TABLE audit_log DROP COLUMN personal_salt, DROP COLUMN personal_commitment, DROP COLUMN erased_by, DROP COLUMN erased_at`,
    );
  }
}
