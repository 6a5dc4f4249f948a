import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Email notifications (docs/notifications.md).
 *
 * - `notifications.email_queued`: whether the row was queued for its recipients' mail yet. Rows
 *   commit out of `seq` order (a transaction that took seq 10 may commit after the one that took
 *   11), so a place in `seq` order would skip 10; a mark on each row skips nothing, and the
 *   partial index of the unmarked ones is empty when nothing waits.
 * - `notification_emails`: what waits to be mailed to whom, one row per person and notification
 *   (an admins' notification is one row for each admin).
 * - `notification_mailboxes`: per person, when the next mail may go (`next_at`: the end of the
 *   quiet period after the last one, of a retry's backoff, or of a deliverer's lease), the
 *   notifications the mail under way holds (`pending_seqs`, recorded before it is sent), and the
 *   last one mailed.
 * - `notification_preferences`: the events a person turned off (or on again), per channel.
 */
export class NotificationEmail1768406400000 implements MigrationInterface {
  name = 'NotificationEmail1768406400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE notifications ADD COLUMN email_queued boolean NOT NULL DEFAULT false`);
    await db.query(`CREATE INDEX notifications_email_unqueued ON notifications (seq) WHERE NOT email_queued`);
    await db.query(`CREATE TABLE notification_emails (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      seq bigint NOT NULL REFERENCES notifications (seq) ON DELETE CASCADE,
      PRIMARY KEY (user_id, seq)
    )`);
    await db.query(`CREATE INDEX notification_emails_seq ON notification_emails (seq)`);
    await db.query(`CREATE TABLE notification_mailboxes (
      user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      waiting boolean NOT NULL,
      next_at timestamptz NOT NULL,
      lease_token uuid NULL,
      pending_seqs bigint[] NULL,
      last_seq bigint NULL,
      last_sent_at timestamptz NULL,
      failures integer NOT NULL DEFAULT 0
    )`);
    await db.query(`CREATE INDEX notification_mailboxes_due ON notification_mailboxes (next_at) WHERE waiting`);
    await db.query(`CREATE TABLE notification_preferences (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      channel text NOT NULL,
      event text NOT NULL,
      enabled boolean NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (user_id, channel, event)
    )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE notification_preferences`);
    await db.query(`DROP TABLE notification_mailboxes`);
    await db.query(`DROP TABLE notification_emails`);
    await db.query(`DROP INDEX notifications_email_unqueued`);
    await db.query(`ALTER TABLE notifications DROP COLUMN email_queued`);
  }
}
