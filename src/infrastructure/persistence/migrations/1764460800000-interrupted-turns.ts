import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a chat turn cut off by a crash leaves behind, made findable:
 * - a turn stores its answer's row (status 'in_progress', the turn's decision id) together
 *   with the person's message, so the answer has its place right after the question
 *   whatever happens later in the conversation, and a turn that never finished is one
 *   small index scan away;
 * - an outcome row finds its pending row by index, so "pending with no outcome" is an
 *   anti-join over the pending rows rather than over the whole log.
 */
export class InterruptedTurns1764460800000 implements MigrationInterface {
  name = 'InterruptedTurns1764460800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE messages ADD COLUMN decision_id uuid`);
    await db.query(`CREATE UNIQUE INDEX messages_decision_idx ON messages (decision_id) WHERE decision_id IS NOT NULL`);
    await db.query(`CREATE INDEX messages_in_progress_idx ON messages (created_at) WHERE status = 'in_progress'`);
    await db.query(`CREATE INDEX audit_log_pending_seq_idx ON audit_log (pending_seq) WHERE pending_seq IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX audit_log_pending_seq_idx`);
    await db.query(`DROP INDEX messages_in_progress_idx`);
    await db.query(`DROP INDEX messages_decision_idx`);
    await db.query(`ALTER TABLE messages DROP COLUMN decision_id`);
  }
}
