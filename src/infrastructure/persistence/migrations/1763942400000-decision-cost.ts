import type { MigrationInterface, QueryRunner } from 'typeorm';

export class DecisionCost1763942400000 implements MigrationInterface {
  name = 'DecisionCost1763942400000';

  async up(db: QueryRunner): Promise<void> {
    // Null when no prices are configured (LLM_PRICE_INPUT_PER_1K / LLM_PRICE_OUTPUT_PER_1K).
    await db.query(`ALTER TABLE decision_logs ADD COLUMN cost numeric(14, 6)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE decision_logs DROP COLUMN cost`);
  }
}
