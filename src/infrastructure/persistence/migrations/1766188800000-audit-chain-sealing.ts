import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Names the sealer's lock among the server's advisory locks (any constant). */
export const AUDIT_SEAL_LOCK = 4_201_378;

/**
 * The first sealer, as this migration created it (1766361600000 replaces it and puts it back
 * on the way down). Its arrays grow by copying, so a batch of n rows costs n² copies.
 */
export const AUDIT_SEAL_V1 = `FUNCTION audit_seal(max_rows integer) RETURNS integer LANGUAGE plpgsql AS $$
      DECLARE
        queued bigint[];
        head bigint;
        previous char(64);
        r audit_log;
        positions bigint[] := '{}';
        seqs bigint[] := '{}';
        prevs char(64)[] := '{}';
        hashes char(64)[] := '{}';
      BEGIN
        -- One sealer at a time, whichever process: the others leave at once.
        IF NOT pg_try_advisory_xact_lock(${AUDIT_SEAL_LOCK}) THEN
          RETURN 0;
        END IF;
        WITH taken AS (
          DELETE FROM audit_unsealed WHERE seq IN (SELECT seq FROM audit_unsealed ORDER BY seq LIMIT max_rows) RETURNING seq
        ) SELECT array_agg(seq) INTO queued FROM taken;
        IF queued IS NULL THEN
          RETURN 0;
        END IF;
        SELECT position, hash INTO head, previous FROM audit_chain ORDER BY position DESC LIMIT 1;
        head := coalesce(head, 0);
        previous := coalesce(previous, repeat('0', 64));
        FOR r IN SELECT * FROM audit_log WHERE seq = ANY (queued) ORDER BY seq LOOP
          head := head + 1;
          positions := positions || head;
          seqs := seqs || r.seq;
          prevs := prevs || previous;
          previous := audit_row_hash(previous, r);
          hashes := hashes || previous;
        END LOOP;
        INSERT INTO audit_chain (position, seq, prev_hash, hash)
          SELECT * FROM unnest(positions, seqs, prevs, hashes);
        RETURN cardinality(seqs);
      END $$`;

/**
 * The audit chain leaves the hot path (docs/decisions/0008-audit-chain-sealing.md).
 *
 * Before: a BEFORE INSERT trigger took one transaction-wide advisory lock, numbered the row,
 * read the newest hash and hashed the row, so every writer of every replica waited for the
 * one before it to commit. Now an append is a plain insert, and a statement trigger queues
 * the statement's rows in `audit_unsealed`, with no lock. A sealer (`audit_seal`, one at a time whichever process calls it: it takes a
 * transaction lock or leaves) links the queued rows in batches, in the order it finds them
 * committed, into `audit_chain`: position, seq, prev_hash, hash, with the same hash as
 * before, `sha256(prev_hash ‖ audit_row_canonical(row))`. The existing chain moves there
 * unchanged (its positions are its seq order), so its hashes still verify.
 */
export class AuditChainSealing1766188800000 implements MigrationInterface {
  name = 'AuditChainSealing1766188800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER audit_log_chain ON audit_log`);
    await db.query(`DROP FUNCTION audit_log_chain()`);
    await db.query(`ALTER TABLE audit_log ALTER COLUMN seq SET DEFAULT nextval(pg_get_serial_sequence('audit_log', 'seq'))`);

    await db.query(`
      CREATE TABLE audit_chain (
        position bigint PRIMARY KEY,
        seq bigint NOT NULL UNIQUE,
        prev_hash char(64) NOT NULL,
        hash char(64) NOT NULL,
        sealed_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`
      INSERT INTO audit_chain (position, seq, prev_hash, hash, sealed_at)
      SELECT row_number() OVER (ORDER BY seq), seq, prev_hash, hash, created_at FROM audit_log`);
    // The row type changes: the canonical text never included the hashes, so it is the same.
    await db.query(`ALTER TABLE audit_log DROP COLUMN prev_hash, DROP COLUMN hash`);
    await db.query(`CREATE TABLE audit_unsealed (seq bigint PRIMARY KEY)`);
    // Whoever inserts (the appender, a migration, an operator's script), the rows are queued:
    // once per statement, from its transition table, in the inserting transaction.
    await db.query(`
      CREATE FUNCTION audit_log_queue() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO audit_unsealed (seq) SELECT seq FROM appended;
        RETURN NULL;
      END $$`);
    await db.query(
      `CREATE TRIGGER audit_log_queue AFTER INSERT ON audit_log REFERENCING NEW TABLE AS appended FOR EACH STATEMENT EXECUTE FUNCTION audit_log_queue()`,
    );

    await db.query(
      `CREATE TRIGGER audit_chain_append_only BEFORE UPDATE OR DELETE ON audit_chain FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change()`,
    );
    await db.query(
      `CREATE TRIGGER audit_chain_no_truncate BEFORE TRUNCATE ON audit_chain FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change()`,
    );

    // One round trip per batch; the hashes are the SQL functions verify recomputes.
    await db.query(`CREATE ${AUDIT_SEAL_V1}`);
  }

  async down(db: QueryRunner): Promise<void> {
    // The old chain's order is seq order, and the sealer's need not be: the rows are chained
    // again in seq order (as the first chain migration did), then the trigger comes back.
    await db.query(`DROP FUNCTION audit_seal(integer)`);
    await db.query(`DROP TRIGGER audit_log_queue ON audit_log`);
    await db.query(`DROP FUNCTION audit_log_queue()`);
    await db.query(`DROP TABLE audit_unsealed`);
    await db.query(`DROP TABLE audit_chain`);
    await db.query(`ALTER TABLE audit_log ADD COLUMN prev_hash char(64), ADD COLUMN hash char(64)`);
    await db.query(`ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only`);
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
    await db.query(`ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only`);
    await db.query(`ALTER TABLE audit_log ALTER COLUMN prev_hash SET NOT NULL, ALTER COLUMN hash SET NOT NULL`);
    await db.query(`ALTER TABLE audit_log ALTER COLUMN seq DROP DEFAULT`);
    await db.query(`
      CREATE FUNCTION audit_log_chain() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock(4201377);
        NEW.seq := nextval(pg_get_serial_sequence('audit_log', 'seq'));
        NEW.prev_hash := coalesce((SELECT hash FROM audit_log ORDER BY seq DESC LIMIT 1), repeat('0', 64));
        NEW.hash := audit_row_hash(NEW.prev_hash, NEW);
        RETURN NEW;
      END $$`);
    await db.query(`CREATE TRIGGER audit_log_chain BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_chain()`);
  }
}
