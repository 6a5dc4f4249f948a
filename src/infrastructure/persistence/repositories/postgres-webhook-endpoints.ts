import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import type { Page } from '../../../application/shared/page';
import {
  type NewWebhookEndpoint,
  type WebhookChange,
  WebhookEndpointRepository,
} from '../../../application/webhooks/ports/webhook-endpoint-repository.port';
import {
  DELIVERY_OUTCOMES,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookOwner,
} from '../../../domain/webhooks/webhook-endpoint';
import { decodeCursor, encodeCursor, isSeqCursor } from '../cursor';
import { exists, inTransaction, join, run, selectRow, selectRows, sql, type Statement } from '../sql';
import { ENDPOINT_COLUMNS, ENDPOINT_ROW, ownedBy } from '../tables/webhook-endpoints';
import { WebhookSecretBox } from '../../security/webhook-secret-box';

/** Names the lock that counts the deployment's endpoints among the server's advisory locks. */
export const DEPLOYMENT_WEBHOOKS_LOCK = 4_201_420;

const DELIVERY_ROW = z.object({
  id: z.string(),
  messageId: z.string(),
  event: z.string(),
  attempt: z.number().int(),
  attemptedAt: z.date(),
  outcome: z.enum(DELIVERY_OUTCOMES),
  status: z.number().int().nullable(),
  failure: z.string().nullable(),
  durationMs: z.number().int(),
  nextAttemptAt: z.date().nullable(),
});

/** WebhookEndpointRepository on `webhook_endpoints` and `webhook_deliveries` (migration 1768579200000); secrets sealed by WebhookSecretBox. */
@Injectable()
export class PostgresWebhookEndpoints extends WebhookEndpointRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly box: WebhookSecretBox,
  ) {
    super();
  }

  create(endpoint: NewWebhookEndpoint, limit: number, now: Date): Promise<WebhookEndpoint | null> {
    const { owner } = endpoint;
    return inTransaction(this.dataSource, async (manager) => {
      // Two registrations for one owner count one after the other: the person's row, or the deployment's lock.
      if (owner.kind === 'person') {
        const person = await exists(manager, sql`SELECT 1 FROM users WHERE id = ${owner.userId} FOR NO KEY UPDATE`);
        if (!person) return null;
      } else await run(manager, sql`SELECT pg_advisory_xact_lock(${DEPLOYMENT_WEBHOOKS_LOCK})`);
      const held = await selectRow(
        manager,
        sql`SELECT count(*)::int AS n FROM webhook_endpoints e WHERE ${ownedBy(owner)}`,
        z.object({ n: z.number() }),
      );
      if ((held?.n ?? 0) >= limit) return null;
      // The cursor starts at this transaction: the endpoint receives what is written from now on.
      return selectRow(
        manager,
        sql`INSERT INTO webhook_endpoints AS e (id, owner_id, created_by, url, description, events, all_people, secret_sealed, secret_hint,
              cursor_txid, cursor_seq, next_attempt_at, created_at, updated_at)
            VALUES (${randomUUID()}, ${owner.kind === 'person' ? owner.userId : null}, ${endpoint.createdBy}, ${endpoint.url},
              ${endpoint.description}, ${endpoint.events === null ? null : [...endpoint.events]}::text[], ${endpoint.allPeople},
              ${this.box.seal(endpoint.secret)}, ${hint(endpoint.secret)}, pg_current_xact_id(), 0, ${now}, ${now}, ${now})
            RETURNING ${ENDPOINT_COLUMNS}`,
        ENDPOINT_ROW,
      );
    });
  }

  list(owner: WebhookOwner): Promise<WebhookEndpoint[]> {
    return selectRows(
      this.dataSource,
      sql`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints e WHERE ${ownedBy(owner)} ORDER BY e.created_at, e.id`,
      ENDPOINT_ROW,
    );
  }

  find(owner: WebhookOwner, id: string): Promise<WebhookEndpoint | null> {
    return selectRow(
      this.dataSource,
      sql`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints e WHERE e.id = ${id} AND ${ownedBy(owner)}`,
      ENDPOINT_ROW,
    );
  }

  update(owner: WebhookOwner, id: string, change: WebhookChange, now: Date): Promise<WebhookEndpoint | null> {
    const sets: Statement[] = [sql`updated_at = ${now}`];
    if (change.description !== undefined) sets.push(sql`description = ${change.description}`);
    if (change.events !== undefined) sets.push(sql`events = ${change.events === null ? null : [...change.events]}::text[]`);
    if (change.allPeople !== undefined) sets.push(sql`all_people = ${change.allPeople}`);
    // A new address, or enabling a disabled endpoint, gives the head a fresh retry window, due now.
    const fresh = sql`head_notification_id = NULL, head_attempts = 0, head_first_attempt_at = NULL, next_attempt_at = ${now}`;
    if (change.url !== undefined) sets.push(sql`url = ${change.url}`, fresh);
    if (change.enabled === true && change.url === undefined) {
      sets.push(
        sql`head_notification_id = CASE WHEN e.enabled THEN e.head_notification_id END`,
        sql`head_attempts = CASE WHEN e.enabled THEN e.head_attempts ELSE 0 END`,
        sql`head_first_attempt_at = CASE WHEN e.enabled THEN e.head_first_attempt_at END`,
        sql`next_attempt_at = CASE WHEN e.enabled THEN e.next_attempt_at ELSE ${now} END`,
      );
    }
    if (change.enabled === true) sets.push(sql`enabled = true, disabled_reason = NULL, disabled_at = NULL`);
    if (change.enabled === false) {
      sets.push(
        sql`disabled_reason = CASE WHEN e.enabled THEN 'owner' ELSE e.disabled_reason END`,
        sql`disabled_at = CASE WHEN e.enabled THEN ${now} ELSE e.disabled_at END`,
        sql`enabled = false`,
      );
    }
    return selectRow(
      this.dataSource,
      sql`UPDATE webhook_endpoints e SET ${join(sets, ', ')} WHERE e.id = ${id} AND ${ownedBy(owner)} RETURNING ${ENDPOINT_COLUMNS}`,
      ENDPOINT_ROW,
    );
  }

  async remove(owner: WebhookOwner, id: string): Promise<boolean> {
    return exists(this.dataSource, sql`DELETE FROM webhook_endpoints e WHERE e.id = ${id} AND ${ownedBy(owner)} RETURNING e.id`);
  }

  rotateSecret(owner: WebhookOwner, id: string, secret: string, previousUntil: Date | null, now: Date): Promise<WebhookEndpoint | null> {
    return selectRow(
      this.dataSource,
      sql`UPDATE webhook_endpoints e
          SET previous_secret_sealed = CASE WHEN ${previousUntil}::timestamptz IS NULL THEN NULL ELSE e.secret_sealed END,
            previous_secret_until = ${previousUntil}::timestamptz,
            secret_sealed = ${this.box.seal(secret)}, secret_hint = ${hint(secret)}, updated_at = ${now}
          WHERE e.id = ${id} AND ${ownedBy(owner)}
          RETURNING ${ENDPOINT_COLUMNS}`,
      ENDPOINT_ROW,
    );
  }

  async deliveries(
    owner: WebhookOwner,
    id: string,
    page: { readonly limit: number; readonly cursor: string | null },
  ): Promise<Page<WebhookDelivery> | null> {
    const after = decodeCursor(page.cursor, isSeqCursor);
    const found = await exists(this.dataSource, sql`SELECT 1 FROM webhook_endpoints e WHERE e.id = ${id} AND ${ownedBy(owner)}`);
    if (!found) return null;
    const rows = await selectRows(
      this.dataSource,
      sql`SELECT d.id::text AS id, d.message_id AS "messageId", d.event, d.attempt, d.attempted_at AS "attemptedAt", d.outcome,
            d.status, d.failure, d.duration_ms AS "durationMs", d.next_attempt_at AS "nextAttemptAt"
          FROM webhook_deliveries d
          WHERE d.endpoint_id = ${id} AND (${after}::bigint IS NULL OR d.id < ${after}::bigint)
          ORDER BY d.id DESC LIMIT ${page.limit + 1}`,
      DELIVERY_ROW,
    );
    const items = rows.slice(0, page.limit).map(({ id: _id, ...delivery }) => delivery);
    return { items, nextCursor: rows.length > page.limit ? encodeCursor(rows[page.limit - 1].id) : null };
  }
}

/** The secret's last four characters, its base64 padding left out. */
function hint(secret: string): string {
  let end = secret.length;
  while (end > 0 && secret[end - 1] === '=') end--;
  return secret.slice(Math.max(0, end - 4), end);
}
