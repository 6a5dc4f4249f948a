import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Weekly limits beside the daily ones (src/domain/outreach/quota.ts):
 * - a campaign's own weekly limit per kind, null (the default, and what existing campaigns
 *   get) when it has none; the owner's weekly limits come from configuration;
 * - quota_counters, one row per counter (scope, scope id, kind), locked by every
 *   reservation of that counter so that the week's sum it reads next is exact
 *   (quota-ledger.ts reserveSlot).
 * The week is summed from quota_ledger's daily rows, so slots taken before this migration
 * count in the week like any other: nothing to copy.
 */
export class WeeklyLimits1765929600000 implements MigrationInterface {
  name = 'WeeklyLimits1765929600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE campaigns
      ADD COLUMN weekly_limit_profile_lookup integer CHECK (weekly_limit_profile_lookup BETWEEN 0 AND 70000),
      ADD COLUMN weekly_limit_linkedin_message integer CHECK (weekly_limit_linkedin_message BETWEEN 0 AND 70000),
      ADD COLUMN weekly_limit_email integer CHECK (weekly_limit_email BETWEEN 0 AND 70000)`);
    await db.query(`
      CREATE TABLE quota_counters (
        scope varchar(16) NOT NULL CHECK (scope IN ('campaign', 'owner')),
        scope_id uuid NOT NULL,
        kind varchar(32) NOT NULL,
        PRIMARY KEY (scope, scope_id, kind)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE quota_counters`);
    await db.query(`ALTER TABLE campaigns
      DROP COLUMN weekly_limit_profile_lookup, DROP COLUMN weekly_limit_linkedin_message, DROP COLUMN weekly_limit_email`);
  }
}
