import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Serialises appends to audit_log (any constant; it names this lock in pg_locks). */
const AUDIT_CHAIN_LOCK = 4_201_377;

/**
 * audit_log becomes tamper-evident: each row carries
 * `hash = sha256(prev_hash ‖ audit_row_canonical(row))`, computed by a BEFORE INSERT
 * trigger that first takes a transaction lock, then numbers the row — so the chain's order
 * is the sequence's order whatever the number of concurrent writers. Another trigger
 * refuses UPDATE, DELETE and TRUNCATE. Going around the triggers (as the table's owner)
 * is possible, and is what `verify` finds.
 */
export class AuditChain1764115200000 implements MigrationInterface {
  name = 'AuditChain1764115200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE audit_log ADD COLUMN prev_hash char(64), ADD COLUMN hash char(64)`);
    // The row's canonical text: every column but the hashes, in a fixed shape. jsonb
    // renders its keys in one deterministic order, so equal rows give equal text.
    await db.query(`
      CREATE FUNCTION audit_row_canonical(r audit_log) RETURNS text LANGUAGE sql IMMUTABLE AS $$
        SELECT jsonb_build_object(
          'seq', r.seq,
          'createdAt', to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
          'source', r.source,
          'actorId', r.actor_id,
          'conversationId', r.conversation_id,
          'campaignId', r.campaign_id,
          'outreachTaskId', r.outreach_task_id,
          'decisionId', r.decision_id,
          'tool', r.tool,
          'arguments', r.arguments,
          'status', r.status,
          'result', r.result,
          'errorCode', r.error_code,
          'durationMs', r.duration_ms,
          'securityEvents', r.security_events,
          'pendingSeq', r.pending_seq
        )::text
      $$`);
    await db.query(`
      CREATE FUNCTION audit_row_hash(prev_hash text, r audit_log) RETURNS char(64) LANGUAGE sql IMMUTABLE AS $$
        SELECT encode(sha256(convert_to(prev_hash || audit_row_canonical(r), 'UTF8')), 'hex')
      $$`);
    // Rows written before this migration are chained now, in sequence order.
    await db.query(`
      DO $$
      DECLARE
        r audit_log;
        previous char(64) := repeat('0', 64);
      BEGIN
        FOR r IN SELECT * FROM audit_log ORDER BY seq LOOP
          UPDATE audit_log SET prev_hash = previous, hash = audit_row_hash(previous, r) WHERE seq = r.seq
            RETURNING hash INTO previous;
        END LOOP;
      END $$`);
    await db.query(`ALTER TABLE audit_log ALTER COLUMN prev_hash SET NOT NULL, ALTER COLUMN hash SET NOT NULL`);
    await db.query(`
      CREATE FUNCTION audit_log_chain() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock(${AUDIT_CHAIN_LOCK});
        -- Numbered under the lock, so that sequence order is chain order.
        NEW.seq := nextval(pg_get_serial_sequence('audit_log', 'seq'));
        NEW.prev_hash := coalesce((SELECT hash FROM audit_log ORDER BY seq DESC LIMIT 1), repeat('0', 64));
        NEW.hash := audit_row_hash(NEW.prev_hash, NEW);
        RETURN NEW;
      END $$`);
    await db.query(`CREATE TRIGGER audit_log_chain BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_chain()`);
    // The trigger alone numbers rows; a column default would spend a number per row too.
    await db.query(`ALTER TABLE audit_log ALTER COLUMN seq DROP DEFAULT`);
    await db.query(`
      CREATE FUNCTION audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_log is append-only: % is refused', TG_OP USING ERRCODE = 'insufficient_privilege';
      END $$`);
    await db.query(
      `CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change()`,
    );
    await db.query(
      `CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change()`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER audit_log_no_truncate ON audit_log`);
    await db.query(`DROP TRIGGER audit_log_append_only ON audit_log`);
    await db.query(`ALTER TABLE audit_log ALTER COLUMN seq SET DEFAULT nextval(pg_get_serial_sequence('audit_log', 'seq'))`);
    await db.query(`DROP TRIGGER audit_log_chain ON audit_log`);
    await db.query(`DROP FUNCTION audit_log_refuse_change()`);
    await db.query(`DROP FUNCTION audit_log_chain()`);
    await db.query(`DROP FUNCTION audit_row_hash(text, audit_log)`);
    await db.query(`DROP FUNCTION audit_row_canonical(audit_log)`);
    await db.query(`ALTER TABLE audit_log DROP COLUMN hash, DROP COLUMN prev_hash`);
  }
}
