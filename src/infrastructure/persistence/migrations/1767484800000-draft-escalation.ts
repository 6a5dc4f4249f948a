import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A policy rule's reviewer may escalate: a draft its owner did not decide in time goes to the
 * admins instead of being rejected. outreach_drafts.on_expiry may say `escalate`; escalated_at
 * is when the sweep handed it over (its on_expiry is then `reject`, for the admins' time).
 * outreach_drafts_escalated serves the admins' queue: escalated drafts still awaiting review,
 * newest first.
 */
export class DraftEscalation1767484800000 implements MigrationInterface {
  name = 'DraftEscalation1767484800000';

  async up(db: QueryRunner): Promise<void> {
    // The check 1767398400000 declared inline, under the name PostgreSQL gave it.
    await db.query(`ALTER TABLE outreach_drafts DROP CONSTRAINT outreach_drafts_on_expiry_check`);
    await db.query(`ALTER TABLE outreach_drafts ADD CONSTRAINT outreach_drafts_on_expiry_check
      CHECK (on_expiry IN ('redraft', 'reject', 'escalate'))`);
    await db.query(`ALTER TABLE outreach_drafts ADD COLUMN escalated_at timestamptz NULL`);
    await db.query(`CREATE INDEX outreach_drafts_escalated ON outreach_drafts (escalated_at DESC, id DESC)
      WHERE status = 'awaiting_review' AND escalated_at IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX outreach_drafts_escalated`);
    await db.query(`ALTER TABLE outreach_drafts DROP COLUMN escalated_at`);
    // A draft still waiting to be escalated falls back to what the rule could say before.
    await db.query(`UPDATE outreach_drafts SET on_expiry = 'reject' WHERE on_expiry = 'escalate'`);
    await db.query(`ALTER TABLE outreach_drafts DROP CONSTRAINT outreach_drafts_on_expiry_check`);
    await db.query(`ALTER TABLE outreach_drafts ADD CONSTRAINT outreach_drafts_on_expiry_check CHECK (on_expiry IN ('redraft', 'reject'))`);
  }
}
