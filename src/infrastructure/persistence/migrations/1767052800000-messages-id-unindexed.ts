import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops the unique index on messages.id. No statement looks a message up by its id (pages go
 * by seq, a turn's answer is found by its decision_id, the crash sweeper by seq), the ids come
 * from gen_random_uuid(), and no foreign key points at the column. It cost every chat turn
 * three entries in that index: two messages inserted, and the answer updated in place (an
 * update that changes status is never HOT). On a server after 2 000 turns it was the largest
 * index of the table and had answered no scan (docs/performance.md, "Indexes").
 */
export class MessagesIdUnindexed1767052800000 implements MigrationInterface {
  name = 'MessagesIdUnindexed1767052800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE messages DROP CONSTRAINT messages_id_key`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE messages ADD CONSTRAINT messages_id_key UNIQUE (id)`);
  }
}
