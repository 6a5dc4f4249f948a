import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * pending_actions becomes pending_confirmations: one name, in the code, the API and the
 * schema, for a destructive call waiting for the person's yes. A rename keeps every row,
 * constraint and grant.
 */
export class PendingConfirmations1764979200000 implements MigrationInterface {
  name = 'PendingConfirmations1764979200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE pending_actions RENAME TO pending_confirmations`);
    await db.query(`ALTER INDEX pending_actions_open_idx RENAME TO pending_confirmations_open_idx`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER INDEX pending_confirmations_open_idx RENAME TO pending_actions_open_idx`);
    await db.query(`ALTER TABLE pending_confirmations RENAME TO pending_actions`);
  }
}
