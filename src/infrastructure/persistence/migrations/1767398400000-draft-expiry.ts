import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * outreach_drafts.on_expiry: what a draft's expiry does. `redraft` (every draft until now, and
 * the campaign's own review mode): the task is due again and drafts anew. `reject`: a policy
 * rule's reviewer did not answer in its time, and its fallback is to reject: the task is
 * cancelled (REVIEW_TIMED_OUT) and its slot given back.
 */
export class DraftExpiry1767398400000 implements MigrationInterface {
  name = 'DraftExpiry1767398400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE outreach_drafts ADD COLUMN on_expiry varchar(16) NOT NULL DEFAULT 'redraft' CHECK (on_expiry IN ('redraft', 'reject'))`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE outreach_drafts DROP COLUMN on_expiry`);
  }
}
