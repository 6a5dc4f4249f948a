import type { MigrationInterface, QueryRunner } from 'typeorm';
import { AUDIT_SEAL_LOCK } from './1766188800000-audit-chain-sealing';
import { AUDIT_SEAL_V2 } from './1766361600000-audit-seal-linear';

/**
 * The sealer reads each queued row by its key, one statement a row, so sealing a batch never
 * reads more of `audit_log` than the batch, however large the log grows.
 *
 * Migration 1766361600000 read the batch with `unnest(queued) CROSS JOIN LATERAL (… WHERE
 * l.seq = q.seq)`. PostgreSQL flattens that LATERAL subquery into an ordinary join, and the
 * generic plan PL/pgSQL caches for the function (planned once per connection, with the table's
 * size as it was then and no statistics) was a hash join over a sequential scan of the whole
 * log: on the outreach benchmark, 400 rows read per cycle at 20 000 audit rows, growing with
 * the log. `SELECT … WHERE seq = s` has one plan, the primary key's index. Same rows, same
 * order, same hashes.
 */
export class AuditSealByKey1766448000000 implements MigrationInterface {
  name = 'AuditSealByKey1766448000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE OR REPLACE FUNCTION audit_seal(max_rows integer) RETURNS integer LANGUAGE plpgsql AS $$
      DECLARE
        queued bigint[];
        queued_seq bigint;
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
        FOREACH queued_seq IN ARRAY queued LOOP
          SELECT * INTO r FROM audit_log WHERE seq = queued_seq;
          CONTINUE WHEN NOT FOUND;
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
      END $$`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`CREATE OR REPLACE ${AUDIT_SEAL_V2}`);
  }
}
