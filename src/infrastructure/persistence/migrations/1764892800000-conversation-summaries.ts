import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * conversation_summaries: what the model made of the older part of a long conversation,
 * each row covering its messages from the first through `last_seq` (an earlier summary is
 * folded into the next), made by the turn `decision_id`. decision_logs.context: what the
 * model was told in a turn (which summary, which messages, about how many tokens).
 */
export class ConversationSummaries1764892800000 implements MigrationInterface {
  name = 'ConversationSummaries1764892800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE conversation_summaries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        decision_id uuid NOT NULL,
        content text NOT NULL,
        last_seq bigint NOT NULL,
        messages integer NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    await db.query(`CREATE INDEX conversation_summaries_latest_idx ON conversation_summaries (conversation_id, last_seq DESC)`);
    await db.query(`ALTER TABLE decision_logs ADD COLUMN context jsonb`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE decision_logs DROP COLUMN context`);
    await db.query(`DROP TABLE conversation_summaries`);
  }
}
