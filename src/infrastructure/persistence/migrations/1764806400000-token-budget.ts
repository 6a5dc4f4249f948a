import type { MigrationInterface, QueryRunner } from 'typeorm';

/** token_ledger: each person's chat tokens and their cost per UTC day, reserved before a model call and settled after. */
export class TokenBudget1764806400000 implements MigrationInterface {
  name = 'TokenBudget1764806400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE token_ledger (
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        day date NOT NULL,
        used bigint NOT NULL CHECK (used >= 0),
        cost numeric(20, 6) NOT NULL DEFAULT 0 CHECK (cost >= 0),
        PRIMARY KEY (user_id, day)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE token_ledger`);
  }
}
