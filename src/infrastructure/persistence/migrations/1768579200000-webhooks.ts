import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks (docs/webhooks.md): the endpoints, each with its own place in the notifications
 * outbox, and their delivery log.
 *
 * `notifications.txid` is the id of the transaction that wrote the row (its default, evaluated
 * in that transaction). Endpoints read the outbox in (txid, seq) order, and only rows whose
 * transaction is older than every transaction of this database still running (the horizon in
 * tables/webhook-endpoints.ts): a row that commits late can then never land behind a cursor
 * that has already moved past it, as it could in `seq` order, where a transaction may take a
 * number and commit after one that took the next.
 *
 * An endpoint's cursor (`cursor_txid`, `cursor_seq`) is the last message it finished; its head
 * (`head_*`) the message it is retrying. `lease_token`/`lease_until` say which deliverer holds
 * it. A person's endpoints and their log go with their account; a deployment endpoint has no
 * owner and stays when the admin who made it goes.
 */
export class Webhooks1768579200000 implements MigrationInterface {
  name = 'Webhooks1768579200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE notifications ADD COLUMN txid xid8 NOT NULL DEFAULT pg_current_xact_id()`);
    await db.query(`CREATE INDEX notifications_recipient_order ON notifications (recipient_id, txid, seq)`);
    await db.query(`CREATE INDEX notifications_order ON notifications (txid, seq)`);
    await db.query(`CREATE TABLE webhook_endpoints (
      id uuid PRIMARY KEY,
      owner_id uuid NULL REFERENCES users(id) ON DELETE CASCADE,
      created_by uuid NULL REFERENCES users(id) ON DELETE SET NULL,
      url text NOT NULL CHECK (length(url) <= 2000),
      description text NOT NULL DEFAULT '',
      events text[] NULL,
      all_people boolean NOT NULL DEFAULT false CHECK (NOT all_people OR owner_id IS NULL),
      secret_sealed text NOT NULL,
      secret_hint text NOT NULL,
      previous_secret_sealed text NULL,
      previous_secret_until timestamptz NULL,
      enabled boolean NOT NULL DEFAULT true,
      disabled_reason text NULL CHECK (disabled_reason IN ('owner', 'failing', 'gone')),
      disabled_at timestamptz NULL,
      cursor_txid xid8 NOT NULL,
      cursor_seq bigint NOT NULL DEFAULT 0,
      head_notification_id uuid NULL,
      head_attempts integer NOT NULL DEFAULT 0,
      head_first_attempt_at timestamptz NULL,
      next_attempt_at timestamptz NOT NULL,
      lease_token uuid NULL,
      lease_until timestamptz NULL,
      last_attempt_at timestamptz NULL,
      last_outcome text NULL,
      last_status integer NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`);
    await db.query(`CREATE INDEX webhook_endpoints_owner ON webhook_endpoints (owner_id, created_at)`);
    await db.query(`CREATE INDEX webhook_endpoints_due ON webhook_endpoints (next_attempt_at) WHERE enabled`);
    await db.query(`CREATE TABLE webhook_deliveries (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
      message_id text NOT NULL,
      event text NOT NULL,
      attempt integer NOT NULL,
      attempted_at timestamptz NOT NULL,
      duration_ms integer NOT NULL,
      status integer NULL,
      failure text NULL,
      outcome text NOT NULL CHECK (outcome IN ('delivered', 'retrying', 'failed', 'gone')),
      next_attempt_at timestamptz NULL
    )`);
    await db.query(`CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id)`);
    await db.query(`CREATE INDEX webhook_deliveries_time ON webhook_deliveries (attempted_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE webhook_deliveries`);
    await db.query(`DROP TABLE webhook_endpoints`);
    await db.query(`DROP INDEX notifications_order`);
    await db.query(`DROP INDEX notifications_recipient_order`);
    await db.query(`ALTER TABLE notifications DROP COLUMN txid`);
  }
}
