import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * outreach_workers: one row per running outreach worker (in a server process or its own),
 * refreshed while it runs and removed when it stops, so the console can say when no worker
 * is working the campaigns. A worker killed outright leaves its row, which simply ages out.
 */
export class OutreachWorkers1765324800000 implements MigrationInterface {
  name = 'OutreachWorkers1765324800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE outreach_workers (
      id text PRIMARY KEY CHECK (length(id) <= 120),
      started_at timestamptz NOT NULL,
      heartbeat_at timestamptz NOT NULL
    )`);
    await db.query(`CREATE INDEX outreach_workers_heartbeat ON outreach_workers (heartbeat_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE outreach_workers`);
  }
}
