import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * rate_limits: the request counters of every limit (per address, per account, per user), in
 * the database so that every server process counts the same requests.
 */
export class RateLimits1764720000000 implements MigrationInterface {
  name = 'RateLimits1764720000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE rate_limits (
        key text PRIMARY KEY,
        hits integer NOT NULL,
        window_ends timestamptz NOT NULL,
        blocked_until timestamptz,
        blocks integer NOT NULL DEFAULT 0
      )`);
    await db.query(`CREATE INDEX rate_limits_window_ends ON rate_limits (window_ends)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE rate_limits`);
  }
}
