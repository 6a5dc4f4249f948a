import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The audit row's canonical text until this migration: every column but error_message. */
export const CANONICAL_FIELDS = `
  'seq', r.seq,
  'createdAt', to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
  'source', r.source,
  'actorId', r.actor_id,
  'conversationId', r.conversation_id,
  'campaignId', r.campaign_id,
  'outreachTaskId', r.outreach_task_id,
  'decisionId', r.decision_id,
  'tool', r.tool,
  'arguments', r.arguments,
  'status', r.status,
  'result', r.result,
  'errorCode', r.error_code,
  'durationMs', r.duration_ms,
  'securityEvents', r.security_events,
  'pendingSeq', r.pending_seq`;

/**
 * What a chat turn records of itself, and what a failed tool call's audit row says.
 *
 * decision_logs: `message_id`, the person's message the turn answered (messages.id, written by
 * the turn's opening statement; no foreign key, since messages.id is not indexed, see
 * 1767052800000), `intent_type` and `outcome_category` (src/domain/agent/turn-outcome.ts),
 * and the sampling of the turn's model calls, `temperature` and `max_tokens`. All null on
 * outreach cycles and on turns from before.
 *
 * audit_log: `error_message`, the sentence the person is told for a failed or refused call's
 * error. It is part of the hashed row only when it is set, so every row written before
 * keeps its canonical text and its hash. Undone, the messages are gone and the rows that had
 * one no longer verify.
 */
export class TurnRecord1767139200000 implements MigrationInterface {
  name = 'TurnRecord1767139200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE decision_logs ADD COLUMN message_id uuid, ADD COLUMN intent_type varchar(16), ADD COLUMN outcome_category varchar(16),
        ADD COLUMN temperature double precision, ADD COLUMN max_tokens integer`);
    await db.query(`ALTER TABLE audit_log ADD COLUMN error_message text`);
    await db.query(`
      CREATE OR REPLACE FUNCTION audit_row_canonical(r audit_log) RETURNS text LANGUAGE sql STABLE AS $$
        SELECT (jsonb_build_object(${CANONICAL_FIELDS})
          || CASE WHEN r.error_message IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('errorMessage', r.error_message) END)::text
      $$`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE OR REPLACE FUNCTION audit_row_canonical(r audit_log) RETURNS text LANGUAGE sql STABLE AS $$
        SELECT jsonb_build_object(${CANONICAL_FIELDS})::text
      $$`);
    await db.query(`ALTER TABLE audit_log DROP COLUMN error_message`);
    await db.query(`
      ALTER TABLE decision_logs DROP COLUMN message_id, DROP COLUMN intent_type, DROP COLUMN outcome_category, DROP COLUMN temperature,
        DROP COLUMN max_tokens`);
  }
}
