import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The notifications outbox: one row per thing Bridle tells people (a draft awaiting review, an
 * expired one, a confirmation waiting in the console…), written in the transaction of what
 * caused it. `seq` orders them for delivery (by email and webhooks, each keeping its own place);
 * a row for every admin has no recipient. A person's rows go with their account.
 */
export class Notifications1768320000000 implements MigrationInterface {
  name = 'Notifications1768320000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE notifications (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id uuid NOT NULL UNIQUE,
      recipient_id uuid NULL REFERENCES users(id) ON DELETE CASCADE,
      event text NOT NULL,
      subject jsonb NOT NULL,
      facts jsonb NOT NULL,
      created_at timestamptz NOT NULL
    )`);
    await db.query(`CREATE INDEX notifications_recipient_seq ON notifications (recipient_id, seq)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE notifications`);
  }
}
