import { randomUUID } from 'node:crypto';
import type { NewNotification } from '../../../domain/notifications/notification';
import { changeRows, type Sql, sql } from '../sql';

/**
 * Writes a notification into the outbox on `db`: pass the transaction of what caused it, so the
 * notification commits with it or not at all. Delivery (email, webhooks) reads the outbox later.
 */
export async function enqueueNotification(db: Sql, notification: NewNotification): Promise<void> {
  await changeRows(
    db,
    sql`INSERT INTO notifications (id, recipient_id, event, subject, facts, created_at)
        VALUES (${randomUUID()}, ${notification.recipientId}, ${notification.event}, ${JSON.stringify(notification.subject)}::jsonb,
          ${JSON.stringify(notification.facts)}::jsonb, ${notification.at})`,
  );
}
