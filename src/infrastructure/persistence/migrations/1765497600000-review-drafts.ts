import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Review before send: a campaign's approval mode (none, first_n, all) and its N; the task
 * status AwaitingReview (parked until its draft is decided: no claim picks it up, and it
 * keeps the campaign open); outreach_drafts, one row per channel action held for a person,
 * bound to the hash of its arguments, with the quota day its slot was reserved on.
 */
export class ReviewDrafts1765497600000 implements MigrationInterface {
  name = 'ReviewDrafts1765497600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE campaigns
      ADD COLUMN approval_mode varchar(16) NOT NULL DEFAULT 'none' CHECK (approval_mode IN ('none', 'first_n', 'all')),
      ADD COLUMN approval_first_n integer NOT NULL DEFAULT 3 CHECK (approval_first_n BETWEEN 1 AND 1000)`);
    await db.query(`ALTER TABLE outreach_tasks DROP CONSTRAINT outreach_tasks_status_check`);
    await db.query(`ALTER TABLE outreach_tasks ADD CONSTRAINT outreach_tasks_status_check
      CHECK (status IN ('Pending', 'InProgress', 'AwaitingReview', 'Completed', 'Failed', 'Cancelled'))`);
    await db.query(`
      CREATE TABLE outreach_drafts (
        id uuid PRIMARY KEY,
        campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
        owner_id uuid NOT NULL,
        task_id uuid NOT NULL REFERENCES outreach_tasks (id) ON DELETE CASCADE,
        lead_id uuid NOT NULL REFERENCES leads (id) ON DELETE CASCADE,
        decision_id uuid NOT NULL,
        attempt integer NOT NULL,
        action varchar(32) NOT NULL,
        kind varchar(32) NOT NULL,
        args jsonb NOT NULL,
        reason text NOT NULL,
        arguments_hash char(64) NOT NULL,
        status varchar(16) NOT NULL CHECK (status IN ('awaiting_review', 'approved', 'rejected', 'expired', 'sent')),
        quota_day date NOT NULL,
        edited boolean NOT NULL DEFAULT false,
        reviewer_id uuid,
        reviewed_at timestamptz,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    // One undecided or approved draft per task at most.
    await db.query(
      `CREATE UNIQUE INDEX outreach_drafts_open_task ON outreach_drafts (task_id) WHERE status IN ('awaiting_review', 'approved')`,
    );
    await db.query(`CREATE INDEX outreach_drafts_owner_recent ON outreach_drafts (owner_id, created_at DESC, id DESC)`);
    await db.query(`CREATE INDEX outreach_drafts_campaign_kind ON outreach_drafts (campaign_id, kind, status)`);
    await db.query(`CREATE INDEX outreach_drafts_expiry ON outreach_drafts (expires_at) WHERE status = 'awaiting_review'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE outreach_drafts`);
    await db.query(`UPDATE outreach_tasks SET status = 'Pending' WHERE status = 'AwaitingReview'`);
    await db.query(`ALTER TABLE outreach_tasks DROP CONSTRAINT outreach_tasks_status_check`);
    await db.query(`ALTER TABLE outreach_tasks ADD CONSTRAINT outreach_tasks_status_check
      CHECK (status IN ('Pending', 'InProgress', 'Completed', 'Failed', 'Cancelled'))`);
    await db.query(`ALTER TABLE campaigns DROP COLUMN approval_mode, DROP COLUMN approval_first_n`);
  }
}
