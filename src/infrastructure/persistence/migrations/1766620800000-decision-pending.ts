import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the outreach sweep (PostgresOutreachCycleStore.closeAbandonedDecisions) reads to find
 * the decision rows of cycles whose worker died: only the pending rows, by when they were
 * opened. A row leaves the index when its cycle (or the sweep) settles it, so the index stays
 * the size of the cycles under way, whatever the size of the table.
 */
export class DecisionPending1766620800000 implements MigrationInterface {
  name = 'DecisionPending1766620800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX decision_logs_pending ON decision_logs (created_at) WHERE status = 'pending'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX decision_logs_pending`);
  }
}
