import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Budgets in money (docs/decisions/0019-budgets-in-money.md):
 * - month_ledger: each person's chat spend per UTC month, `spent` (settled at the price table)
 *   and `reserved` (held by calls in flight), changed by one conditional statement each;
 * - budget_alerts: the thresholds of a month's budget a person's spend reached, one row each,
 *   so that each is notified once, whichever replica settled the call that reached it;
 * - users.monthly_budget: a person's own budget, set by an admin (null: the default applies);
 * - costs are counted exactly (12 decimals: money.ts), so decision_logs.cost and
 *   token_ledger.cost become unconstrained numeric, which PostgreSQL changes without
 *   rewriting the table.
 */
export class BudgetsInMoney1768492800000 implements MigrationInterface {
  name = 'BudgetsInMoney1768492800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE month_ledger (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      month char(7) NOT NULL,
      spent numeric NOT NULL DEFAULT 0 CHECK (spent >= 0),
      reserved numeric NOT NULL DEFAULT 0 CHECK (reserved >= 0),
      PRIMARY KEY (user_id, month)
    )`);
    await db.query(`CREATE TABLE budget_alerts (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      month char(7) NOT NULL,
      percent integer NOT NULL CHECK (percent > 0),
      created_at timestamptz NOT NULL,
      PRIMARY KEY (user_id, month, percent)
    )`);
    await db.query(`ALTER TABLE users ADD COLUMN monthly_budget numeric NULL CHECK (monthly_budget >= 0)`);
    await db.query(`ALTER TABLE decision_logs ALTER COLUMN cost TYPE numeric`);
    await db.query(`ALTER TABLE token_ledger ALTER COLUMN cost TYPE numeric`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE token_ledger ALTER COLUMN cost TYPE numeric(20, 6)`);
    await db.query(`ALTER TABLE decision_logs ALTER COLUMN cost TYPE numeric(14, 6)`);
    await db.query(`ALTER TABLE users DROP COLUMN monthly_budget`);
    await db.query(`DROP TABLE budget_alerts`);
    await db.query(`DROP TABLE month_ledger`);
  }
}
