import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A task is open while it may still run: it keeps its lead's later steps (and its campaign) waiting. */
const OPEN = `('Pending', 'InProgress', 'AwaitingReview')`;

/**
 * What a cycle reads, by indexes that hold only what it may read (docs/outreach.md, "What a
 * cycle costs the database"):
 * - outreach_tasks.ready: no earlier step of the task's lead is open. Set on import for the
 *   first step; set by the trigger outreach_tasks_ready_next for the next step once the step
 *   before it closes, whoever closes it (a cycle, the sweeper, a review, the do-not-contact
 *   list, an operator's SQL). Open is never entered again once left, so ready never goes back.
 * - outreach_tasks_claim: a campaign's due, ready tasks in the order the claim takes them, so
 *   the claim reads the first unlocked one and stops, however many tasks wait behind it or
 *   wait for an earlier step; it replaces outreach_tasks_due_idx, every due task of every campaign.
 * - outreach_tasks_recent: a campaign's finished tasks, newest first, for the planner's last 3.
 * - campaigns_active: the active campaigns, which the claim visits one by one.
 */
export class OutreachClaim1766275200000 implements MigrationInterface {
  name = 'OutreachClaim1766275200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE outreach_tasks ADD COLUMN ready boolean`);
    await db.query(`UPDATE outreach_tasks d SET ready = NOT EXISTS (
      SELECT 1 FROM outreach_tasks p WHERE p.lead_id = d.lead_id AND p.step < d.step AND p.status IN ${OPEN})`);
    // A task inserted without it counts as ready: the claim still checks the earlier steps itself.
    await db.query(`ALTER TABLE outreach_tasks ALTER COLUMN ready SET NOT NULL, ALTER COLUMN ready SET DEFAULT true`);
    await db.query(`
      CREATE FUNCTION outreach_tasks_ready_next() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE outreach_tasks n SET ready = true
        WHERE n.lead_id = NEW.lead_id AND n.step > NEW.step AND NOT n.ready
          AND NOT EXISTS (SELECT 1 FROM outreach_tasks p WHERE p.lead_id = n.lead_id AND p.step < n.step AND p.status IN ${OPEN});
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER outreach_tasks_ready_next AFTER UPDATE OF status ON outreach_tasks FOR EACH ROW
      WHEN (OLD.status IN ${OPEN} AND NEW.status NOT IN ${OPEN})
      EXECUTE FUNCTION outreach_tasks_ready_next()`);
    await db.query(`CREATE INDEX outreach_tasks_claim ON outreach_tasks (campaign_id, next_run_at, step, created_at, id)
      WHERE status IN ('Pending', 'InProgress') AND ready`);
    await db.query(`DROP INDEX outreach_tasks_due_idx`);
    await db.query(`CREATE INDEX outreach_tasks_recent ON outreach_tasks (campaign_id, completed_at DESC, id)
      WHERE status IN ('Completed', 'Failed') AND completed_at IS NOT NULL`);
    await db.query(`CREATE INDEX campaigns_active ON campaigns (updated_at) WHERE status = 'active'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX campaigns_active`);
    await db.query(`DROP INDEX outreach_tasks_recent`);
    await db.query(`CREATE INDEX outreach_tasks_due_idx ON outreach_tasks (next_run_at) WHERE status IN ('Pending', 'InProgress')`);
    await db.query(`DROP INDEX outreach_tasks_claim`);
    await db.query(`DROP TRIGGER outreach_tasks_ready_next ON outreach_tasks`);
    await db.query(`DROP FUNCTION outreach_tasks_ready_next()`);
    await db.query(`ALTER TABLE outreach_tasks DROP COLUMN ready`);
  }
}
