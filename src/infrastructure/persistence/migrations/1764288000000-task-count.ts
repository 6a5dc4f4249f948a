import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * users.task_count: the tasks a user keeps, moved by the same statement that adds or removes
 * one. The add checks it on the user row it locks anyway, so the per-user limit holds exactly
 * under concurrent adds (a count(*) of tasks would read a snapshot from before the others).
 */
export class TaskCount1764288000000 implements MigrationInterface {
  name = 'TaskCount1764288000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE users ADD COLUMN task_count integer NOT NULL DEFAULT 0 CHECK (task_count >= 0)`);
    await db.query(`UPDATE users u SET task_count = (SELECT count(*) FROM tasks t WHERE t.user_id = u.id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE users DROP COLUMN task_count`);
  }
}
