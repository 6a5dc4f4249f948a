import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  type NewNotification,
  NOTIFICATION_EVENTS,
  type NotificationFacts,
  type NotificationSubject,
} from '../../../domain/notifications/notification';
import { run, type Sql, sql, type Statement } from '../sql';

/**
 * The INSERT of one notification into the outbox, for a caller that keeps its statement budget:
 * put it in a statement of its own as a CTE part (`WITH n AS (${notificationInsert(…)})`), so
 * it commits with what caused it or not at all.
 */
export function notificationInsert(notification: NewNotification): Statement {
  return sql`INSERT INTO notifications (id, recipient_id, event, subject, facts, created_at)
      VALUES (${randomUUID()}, ${notification.recipientId}, ${notification.event}, ${JSON.stringify(notification.subject)}::jsonb,
        ${JSON.stringify(notification.facts)}::jsonb, ${notification.at})`;
}

/**
 * Writes a notification into the outbox on `db`: pass the transaction of what caused it, so the
 * notification commits with it or not at all. Delivery (email, webhooks) reads the outbox later.
 */
export async function enqueueNotification(db: Sql, notification: NewNotification): Promise<void> {
  await run(db, notificationInsert(notification));
}

/** A stored subject, read back as the type it was written as. */
export const NOTIFICATION_SUBJECT = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('draft'), id: z.string() }),
  z.object({ kind: z.literal('confirmation'), id: z.string(), conversationId: z.string() }),
  z.object({ kind: z.literal('campaign'), id: z.string() }),
  z.object({ kind: z.literal('policy'), version: z.number() }),
  z.object({ kind: z.literal('budget'), month: z.string() }),
  z.object({ kind: z.literal('webhook'), id: z.string() }),
]) satisfies z.ZodType<NotificationSubject>;

export const NOTIFICATION_FACTS = z.record(
  z.string(),
  z.union([z.string(), z.number(), z.boolean(), z.null()]),
) satisfies z.ZodType<NotificationFacts>;

export const NOTIFICATION_EVENT = z.enum(NOTIFICATION_EVENTS);
