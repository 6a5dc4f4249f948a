import { z } from 'zod';
import { NOTIFICATION_EVENTS, type NotificationEvent } from '../../../domain/notifications/notification';
import {
  DELIVERY_OUTCOMES,
  WEBHOOK_DISABLED_REASONS,
  type WebhookEndpoint,
  type WebhookOwner,
} from '../../../domain/webhooks/webhook-endpoint';
import { raw, sql, type Statement } from '../sql';

/** An endpoint's columns as its owner reads them: never a sealed secret. */
export const ENDPOINT_COLUMNS = raw(`e.id, e.owner_id AS "ownerId", e.url, e.description, e.events, e.all_people AS "allPeople",
  e.enabled, e.disabled_reason AS "disabledReason", e.disabled_at AS "disabledAt", e.secret_hint AS "secretHint",
  e.previous_secret_until AS "previousSecretUntil", e.last_attempt_at AS "lastAttemptAt", e.last_outcome AS "lastOutcome",
  e.last_status AS "lastStatus", e.created_at AS "createdAt", e.updated_at AS "updatedAt"`);

/** Events as stored: a name no longer known (a later version's) is dropped from the list, not made an error. */
export const EVENTS_COLUMN = z
  .array(z.string())
  .nullable()
  .transform((events): NotificationEvent[] | null =>
    events === null
      ? null
      : events.filter((event): event is NotificationEvent => (NOTIFICATION_EVENTS as readonly string[]).includes(event)),
  );

export const ENDPOINT_ROW = z
  .object({
    id: z.string(),
    ownerId: z.string().nullable(),
    url: z.string(),
    description: z.string(),
    events: EVENTS_COLUMN,
    allPeople: z.boolean(),
    enabled: z.boolean(),
    disabledReason: z.enum(WEBHOOK_DISABLED_REASONS).nullable(),
    disabledAt: z.date().nullable(),
    secretHint: z.string(),
    previousSecretUntil: z.date().nullable(),
    lastAttemptAt: z.date().nullable(),
    lastOutcome: z.enum(DELIVERY_OUTCOMES).nullable(),
    lastStatus: z.number().int().nullable(),
    createdAt: z.date(),
    updatedAt: z.date(),
  })
  .transform(({ lastAttemptAt, lastOutcome, lastStatus, ...endpoint }): WebhookEndpoint => ({
    ...endpoint,
    lastAttempt: lastAttemptAt && lastOutcome ? { at: lastAttemptAt, outcome: lastOutcome, status: lastStatus } : null,
  }));

/** The rows of `owner`'s endpoints, as `e`. */
export function ownedBy(owner: WebhookOwner): Statement {
  return owner.kind === 'person' ? sql`e.owner_id = ${owner.userId}` : sql`e.owner_id IS NULL`;
}

/**
 * The outbox's horizon: the oldest transaction id that may still commit a notification. Every
 * transaction the statement's snapshot sees running (`pg_snapshot_xip`) counts, but for those
 * pg_stat_activity shows running in another database of the server, which cannot write this
 * one's notifications (the snapshot's own xmin is the whole server's, so a long transaction in
 * a neighbouring database would otherwise hold webhooks back). A running transaction that has
 * finished by the time pg_stat_activity is read still counts: the horizon only errs low.
 * With none running, the snapshot's xmax. `backend_xid` is 32 bits; the xid8 is compared by its low 32.
 */
const HORIZON = `(SELECT LEAST(pg_snapshot_xmax(snap), (
    SELECT min(running) FROM pg_snapshot_xip(snap) running
    WHERE (running::text::bigint % 4294967296) NOT IN (
      SELECT backend_xid::text::bigint FROM pg_stat_activity WHERE datname IS DISTINCT FROM current_database() AND backend_xid IS NOT NULL)
  )) FROM pg_current_snapshot() snap)`;

/**
 * The notifications `n` an endpoint `c` has not finished, in the order it delivers them:
 * after its cursor in (txid, seq) order, of a transaction older than every one that may still
 * commit one (HORIZON: so none can commit behind the cursor later; migration 1768579200000),
 * of an event it takes.
 */
const UNFINISHED_TEXT = `(n.txid, n.seq) > (c.cursor_txid, c.cursor_seq)
  AND n.txid < ${HORIZON}
  AND (c.events IS NULL OR n.event = ANY (c.events))`;
export const UNFINISHED = raw(UNFINISHED_TEXT);

/**
 * Whether endpoint `c` has an unfinished notification: a person's, addressed to them; the
 * deployment's, addressed to the admins, or to anyone when it takes every person's. One
 * EXISTS per kind, each on its own index (notifications_recipient_order, notifications_order).
 */
export const HAS_UNFINISHED = raw(`(
  (c.owner_id IS NOT NULL AND EXISTS (SELECT 1 FROM notifications n WHERE n.recipient_id = c.owner_id AND ${UNFINISHED_TEXT}))
  OR (c.owner_id IS NULL AND NOT c.all_people AND EXISTS (SELECT 1 FROM notifications n WHERE n.recipient_id IS NULL AND ${UNFINISHED_TEXT}))
  OR (c.all_people AND EXISTS (SELECT 1 FROM notifications n WHERE ${UNFINISHED_TEXT}))
)`);
