import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The kinds that had columns of their own before this migration. */
const KINDS = ['profile_lookup', 'linkedin_message', 'email'];

/**
 * A campaign's limits as rows, one per kind and window (`campaign_limits`), instead of two
 * columns per kind on `campaigns`: a channel added later (its own kind) needs no column.
 * Existing campaigns' limits are carried over (a daily limit each, a weekly one where set),
 * and the columns are dropped. A kind with no daily row has the default daily limit (50); a
 * kind with no weekly row has no weekly limit of its own.
 */
export class CampaignLimits1768752000000 implements MigrationInterface {
  name = 'CampaignLimits1768752000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE campaign_limits (
        campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
        kind varchar(32) NOT NULL,
        "window" varchar(8) NOT NULL CHECK ("window" IN ('day', 'week')),
        max integer NOT NULL CHECK (max BETWEEN 0 AND 70000),
        PRIMARY KEY (campaign_id, kind, "window")
      )`);
    for (const kind of KINDS) {
      await db.query(`INSERT INTO campaign_limits (campaign_id, kind, "window", max) SELECT id, $1, 'day', limit_${kind} FROM campaigns`, [
        kind,
      ]);
      await db.query(
        `INSERT INTO campaign_limits (campaign_id, kind, "window", max)
         SELECT id, $1, 'week', weekly_limit_${kind} FROM campaigns WHERE weekly_limit_${kind} IS NOT NULL`,
        [kind],
      );
    }
    await db.query(
      `ALTER TABLE campaigns ${KINDS.map((kind) => `DROP COLUMN limit_${kind}, DROP COLUMN weekly_limit_${kind}`).join(', ')}`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE campaigns ${KINDS.map(
        (kind) =>
          `ADD COLUMN limit_${kind} integer NOT NULL DEFAULT 50 CHECK (limit_${kind} >= 0),
           ADD COLUMN weekly_limit_${kind} integer CHECK (weekly_limit_${kind} BETWEEN 0 AND 70000)`,
      ).join(', ')}`,
    );
    for (const kind of KINDS) {
      await db.query(
        `UPDATE campaigns c SET limit_${kind} = coalesce(
           (SELECT max FROM campaign_limits l WHERE l.campaign_id = c.id AND l.kind = $1 AND l."window" = 'day'), 50),
           weekly_limit_${kind} = (SELECT max FROM campaign_limits l WHERE l.campaign_id = c.id AND l.kind = $1 AND l."window" = 'week')`,
        [kind],
      );
      await db.query(`ALTER TABLE campaigns ALTER COLUMN limit_${kind} DROP DEFAULT`);
    }
    await db.query(`DROP TABLE campaign_limits`);
  }
}
