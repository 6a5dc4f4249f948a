import type { MigrationInterface, QueryRunner } from 'typeorm';

export class InitialSchema1763769600000 implements MigrationInterface {
  name = 'InitialSchema1763769600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email varchar(254) NOT NULL,
        password_hash text NOT NULL,
        role varchar(16) NOT NULL CHECK (role IN ('user', 'admin')),
        task_counter integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT users_email_key UNIQUE (email)
      )`);
    await db.query(`
      CREATE TABLE tasks (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        number integer NOT NULL CHECK (number > 0),
        title varchar(200) NOT NULL,
        description varchar(2000),
        priority varchar(8) NOT NULL CHECK (priority IN ('low', 'medium', 'high')),
        completed boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        completed_at timestamptz,
        CONSTRAINT tasks_user_number_key UNIQUE (user_id, number)
      )`);
    await db.query(`CREATE INDEX tasks_user_completed_idx ON tasks (user_id, completed, number)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE tasks`);
    await db.query(`DROP TABLE users`);
  }
}
