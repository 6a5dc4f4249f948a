import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import {
  type AttemptRecord,
  type ClaimedEndpoint,
  type PendingMessage,
  WebhookOutbox,
} from '../../../application/webhooks/ports/webhook-outbox.port';
import type { NotificationFacts, NotificationSubject } from '../../../domain/notifications/notification';
import { WebhookSecretBox } from '../../security/webhook-secret-box';
import { changeRows, inTransaction, selectRow, selectRows, sql, type Statement } from '../sql';
import { enqueueNotification } from '../tables/notifications';
import { EVENTS_COLUMN, HAS_UNFINISHED, UNFINISHED } from '../tables/webhook-endpoints';

const CLAIM_ROW = z.object({
  id: z.string(),
  ownerId: z.string().nullable(),
  url: z.string(),
  events: EVENTS_COLUMN,
  allPeople: z.boolean(),
  secretSealed: z.string(),
  previousSecretSealed: z.string().nullable(),
  previousSecretUntil: z.date().nullable(),
  headNotificationId: z.string().nullable(),
  headAttempts: z.number().int(),
  headFirstAttemptAt: z.date().nullable(),
});

const MESSAGE_ROW = z.object({
  notificationId: z.string(),
  recipientId: z.string().nullable(),
  event: z.string(),
  // Written by enqueueNotification from the domain's types.
  subject: z.custom<NotificationSubject>((value) => typeof value === 'object' && value !== null && 'kind' in value),
  facts: z.custom<NotificationFacts>((value) => typeof value === 'object' && value !== null),
  createdAt: z.date(),
  txid: z.string().regex(/^\d+$/),
  seq: z.string().regex(/^\d+$/),
});

/** How long an endpoint whose secret cannot be opened (JWT_SECRET changed since) waits before it is tried again. */
const UNREADABLE_SECRET_PAUSE_MS = 3_600_000;

/**
 * WebhookOutbox on `webhook_endpoints`, `webhook_deliveries` and the `notifications` outbox
 * (migration 1768579200000). Every write of a deliverer is conditional on its lease token.
 */
@Injectable()
export class PostgresWebhookOutbox extends WebhookOutbox {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly dataSource: DataSource,
    private readonly box: WebhookSecretBox,
  ) {
    super();
  }

  async claim(limit: number, leaseMs: number, now: Date): Promise<ClaimedEndpoint[]> {
    const leaseToken = randomUUID();
    const rows = await selectRows(
      this.dataSource,
      sql`UPDATE webhook_endpoints e SET lease_token = ${leaseToken}, lease_until = ${new Date(now.getTime() + leaseMs)}
          FROM (
            SELECT c.id FROM webhook_endpoints c
            WHERE c.enabled AND c.next_attempt_at <= ${now} AND (c.lease_until IS NULL OR c.lease_until <= ${now}) AND ${HAS_UNFINISHED}
            ORDER BY c.next_attempt_at, c.id
            LIMIT ${limit}
            FOR UPDATE OF c SKIP LOCKED
          ) due
          WHERE e.id = due.id
          RETURNING e.id, e.owner_id AS "ownerId", e.url, e.events, e.all_people AS "allPeople", e.secret_sealed AS "secretSealed",
            e.previous_secret_sealed AS "previousSecretSealed", e.previous_secret_until AS "previousSecretUntil",
            e.head_notification_id AS "headNotificationId", e.head_attempts AS "headAttempts",
            e.head_first_attempt_at AS "headFirstAttemptAt"`,
      CLAIM_ROW,
    );
    const claimed: ClaimedEndpoint[] = [];
    for (const row of rows) {
      const secrets = this.secretsOf(row, now);
      const endpoint: ClaimedEndpoint = {
        id: row.id,
        ownerId: row.ownerId,
        url: row.url,
        events: row.events,
        allPeople: row.allPeople,
        secrets: secrets ?? [],
        leaseToken,
        head:
          row.headNotificationId && row.headFirstAttemptAt
            ? { notificationId: row.headNotificationId, attempts: row.headAttempts, firstAttemptAt: row.headFirstAttemptAt }
            : null,
      };
      if (secrets) claimed.push(endpoint);
      else {
        this.logger.error({
          msg: "a webhook endpoint's secret cannot be opened (was JWT_SECRET changed?): rotate its secret; tried again in an hour",
          webhookId: row.id,
        });
        await this.release(endpoint, new Date(now.getTime() + UNREADABLE_SECRET_PAUSE_MS));
      }
    }
    return claimed;
  }

  async head(endpoint: ClaimedEndpoint): Promise<PendingMessage | null> {
    const addressedTo =
      endpoint.ownerId !== null ? sql`n.recipient_id = ${endpoint.ownerId}` : endpoint.allPeople ? sql`true` : sql`n.recipient_id IS NULL`;
    const row = await selectRow(
      this.dataSource,
      sql`SELECT n.id AS "notificationId", n.recipient_id AS "recipientId", n.event, n.subject, n.facts, n.created_at AS "createdAt",
            n.txid::text AS txid, n.seq::text AS seq
          FROM webhook_endpoints c JOIN notifications n ON ${addressedTo} AND ${UNFINISHED}
          WHERE c.id = ${endpoint.id}
          ORDER BY n.txid, n.seq
          LIMIT 1`,
      MESSAGE_ROW,
    );
    if (!row) return null;
    const { txid, seq, ...message } = row;
    return { ...message, position: `${txid}:${seq}` };
  }

  record(record: AttemptRecord, leaseMs: number, now: Date): Promise<boolean> {
    const { endpoint, message, outcome } = record;
    const [txid, seq] = message.position.split(':');
    const finished = sql`cursor_txid = ${txid}::xid8, cursor_seq = ${seq}::bigint,
      head_notification_id = NULL, head_attempts = 0, head_first_attempt_at = NULL`;
    const retried = sql`head_notification_id = ${message.notificationId}, head_attempts = ${record.attempt},
      head_first_attempt_at = ${record.firstAttemptAt}`;
    const released = sql`lease_token = NULL, lease_until = NULL`;
    const disabled = (reason: string) => sql`enabled = false, disabled_reason = ${reason}, disabled_at = ${now}`;
    let moves: Statement;
    switch (outcome.kind) {
      case 'delivered':
        moves = sql`${finished}, next_attempt_at = ${now}, lease_until = ${new Date(now.getTime() + leaseMs)}`;
        break;
      case 'retrying':
        moves = sql`${retried}, next_attempt_at = ${outcome.nextAttemptAt}, ${released}`;
        break;
      case 'failed':
        moves = sql`${finished}, ${disabled('failing')}, ${released}`;
        break;
      case 'gone':
        moves = sql`${retried}, ${disabled('gone')}, ${released}`;
        break;
    }
    return inTransaction(this.dataSource, async (manager) => {
      const moved = await changeRows(
        manager,
        sql`UPDATE webhook_endpoints SET ${moves},
              last_attempt_at = ${record.attemptedAt}, last_outcome = ${outcome.kind}, last_status = ${record.status}
            WHERE id = ${endpoint.id} AND lease_token = ${endpoint.leaseToken}`,
      );
      if (moved === 0) return false;
      await changeRows(
        manager,
        sql`INSERT INTO webhook_deliveries (endpoint_id, message_id, event, attempt, attempted_at, duration_ms, status, failure, outcome, next_attempt_at)
            VALUES (${endpoint.id}, ${record.messageId}, ${message.event}, ${record.attempt}, ${record.attemptedAt}, ${record.durationMs},
              ${record.status}, ${record.failure}, ${outcome.kind}, ${outcome.kind === 'retrying' ? outcome.nextAttemptAt : null})`,
      );
      if (outcome.kind === 'failed' || outcome.kind === 'gone') await enqueueNotification(manager, outcome.notice);
      return true;
    });
  }

  /** @param nextAttemptAt when given, the endpoint is not claimed again before it. */
  async release(endpoint: ClaimedEndpoint, nextAttemptAt?: Date): Promise<void> {
    await changeRows(
      this.dataSource,
      sql`UPDATE webhook_endpoints SET lease_token = NULL, lease_until = NULL,
            next_attempt_at = COALESCE(${nextAttemptAt ?? null}::timestamptz, next_attempt_at)
          WHERE id = ${endpoint.id} AND lease_token = ${endpoint.leaseToken}`,
    );
  }

  async prune(before: Date, perEndpoint: number): Promise<number> {
    const old = await changeRows(this.dataSource, sql`DELETE FROM webhook_deliveries WHERE attempted_at < ${before}`);
    const past = await changeRows(
      this.dataSource,
      sql`DELETE FROM webhook_deliveries d USING (
            SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY endpoint_id ORDER BY id DESC) AS place FROM webhook_deliveries) ranked
            WHERE place > ${perEndpoint}
          ) surplus
          WHERE d.id = surplus.id`,
    );
    return old + past;
  }

  /** The secrets that sign, current first; null when one cannot be opened (sealed under another JWT_SECRET). */
  private secretsOf(row: z.output<typeof CLAIM_ROW>, now: Date): string[] | null {
    try {
      const secrets = [this.box.open(row.secretSealed)];
      if (row.previousSecretSealed && row.previousSecretUntil && row.previousSecretUntil > now) {
        secrets.push(this.box.open(row.previousSecretSealed));
      }
      return secrets;
    } catch {
      return null;
    }
  }
}
