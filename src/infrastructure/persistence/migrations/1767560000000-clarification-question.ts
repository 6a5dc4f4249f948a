import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * decision_logs.clarification_question: for a chat turn whose decision is ASK_CLARIFICATION,
 * the question the person was asked, as the reply worded it (src/domain/agent/decision.ts).
 * Null on every other row, and on turns from before.
 */
export class ClarificationQuestion1767560000000 implements MigrationInterface {
  name = 'ClarificationQuestion1767560000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE decision_logs ADD COLUMN clarification_question text NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE decision_logs DROP COLUMN clarification_question`);
  }
}
