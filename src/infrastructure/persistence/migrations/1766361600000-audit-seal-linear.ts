import type { MigrationInterface, QueryRunner } from 'typeorm';
import { AUDIT_SEAL_LOCK, AUDIT_SEAL_V1 } from './1766188800000-audit-chain-sealing';

/** The sealer as this migration defines it (kept for the down of migration 1766448000000). */
export const AUDIT_SEAL_V2 = `FUNCTION audit_seal(max_rows integer) RETURNS integer LANGUAGE plpgsql AS $$
      DECLARE
        queued bigint[];
        head bigint;
        previous char(64);
        r audit_log;
        n integer := 0;
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
        ) SELECT array_agg(seq ORDER BY seq) INTO queued FROM taken;
        IF queued IS NULL THEN
          RETURN 0;
        END IF;
        SELECT position, hash INTO head, previous FROM audit_chain ORDER BY position DESC LIMIT 1;
        head := coalesce(head, 0);
        previous := coalesce(previous, repeat('0', 64));
        FOR r IN SELECT a.* FROM unnest(queued) WITH ORDINALITY AS q (seq, i)
                   CROSS JOIN LATERAL (SELECT * FROM audit_log l WHERE l.seq = q.seq) a ORDER BY q.i LOOP
          n := n + 1;
          head := head + 1;
          positions[n] := head;
          seqs[n] := r.seq;
          prevs[n] := previous;
          previous := audit_row_hash(previous, r);
          hashes[n] := previous;
        END LOOP;
        INSERT INTO audit_chain (position, seq, prev_hash, hash)
          SELECT * FROM unnest(positions, seqs, prevs, hashes);
        RETURN n;
      END $$`;

/**
 * The sealer's cost per row, from about 0.2 ms (and growing with the batch) to about 0.02 ms,
 * with the same hashes (docs/audit-log.md, "What an append costs"):
 * - `audit_row_canonical` and `audit_row_hash` are declared STABLE, which they are (to_char
 *   and convert_to are): declared IMMUTABLE around stable functions, PostgreSQL would not
 *   inline them, and ran each call as a query of its own. Their bodies are unchanged.
 * - `audit_seal` fills its arrays in place (an array grown with `||` is copied each time:
 *   n² for a batch of n rows) and reads the queued rows through a LATERAL join on their key.
 *   That did not hold: the plan PL/pgSQL caches can be a hash join over the whole table
 *   (migration 1766448000000 reads them one key at a time).
 */
export class AuditSealLinear1766361600000 implements MigrationInterface {
  name = 'AuditSealLinear1766361600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER FUNCTION audit_row_canonical(audit_log) STABLE`);
    await db.query(`ALTER FUNCTION audit_row_hash(text, audit_log) STABLE`);
    await db.query(`CREATE OR REPLACE ${AUDIT_SEAL_V2}`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`CREATE OR REPLACE ${AUDIT_SEAL_V1}`);
    await db.query(`ALTER FUNCTION audit_row_hash(text, audit_log) IMMUTABLE`);
    await db.query(`ALTER FUNCTION audit_row_canonical(audit_log) IMMUTABLE`);
  }
}
