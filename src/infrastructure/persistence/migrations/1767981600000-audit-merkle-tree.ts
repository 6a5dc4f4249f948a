import type { MigrationInterface, QueryRunner } from 'typeorm';
import { AUDIT_SEAL_LOCK } from './1766188800000-audit-chain-sealing';
import { AuditSealByKey1766448000000 } from './1766448000000-audit-seal-by-key';

/** Links per statement when the tree is built over a chain sealed before this migration. */
export const TREE_BACKFILL_BATCH = 20_000;

/**
 * An RFC 9162 Merkle tree over the audit chain's links, in position order
 * (docs/decisions/0016-merkle-tree-over-the-audit-chain.md): leaf i is the link at position
 * i + 1, its data the link's hash (32 bytes), its hash SHA-256(0x00 ‖ data).
 *
 * `audit_tree_tiles` keeps the tree as C2SP tlog-tiles does, height 8: the row (level, idx)
 * holds the hashes of tree level 8·level numbered idx·256 … idx·256 + 255, concatenated. Only
 * the last tile of each level is partial; it is rewritten as it grows, and a trigger refuses
 * any change but growth (a hash once written never changes) and any delete. `audit_seal`
 * appends each batch's leaves in its own transaction, under its lock, so there is one writer;
 * a level-(8·(L+1)) hash is written when the level-L tile it covers fills. So proofs and roots
 * read at most a few tiles per level, and a batch writes about one row.
 *
 * `audit_checkpoints` gains the tree's size (its position) and root, and the checkpoint as a
 * C2SP signed note (`note`); older checkpoints keep nulls there and their v1 signature.
 */
export class AuditMerkleTree1767981600000 implements MigrationInterface {
  name = 'AuditMerkleTree1767981600000';
  /** Links per statement of the backfill; a test sets fewer to build in several. */
  static backfillBatch: number | undefined;

  async up(db: QueryRunner): Promise<void> {
    // No sealer of the old code links rows while the tree over them is built.
    await db.query(`SELECT pg_advisory_xact_lock(${AUDIT_SEAL_LOCK})`);
    await db.query(`
      CREATE TABLE audit_tree_tiles (
        level smallint NOT NULL CHECK (level BETWEEN 0 AND 6),
        idx bigint NOT NULL CHECK (idx >= 0),
        hashes bytea NOT NULL CHECK (length(hashes) BETWEEN 32 AND 8192 AND length(hashes) % 32 = 0),
        PRIMARY KEY (level, idx)
      )`);
    // Hashes do not compress: store them out of line without trying (a partial tile is rewritten often).
    await db.query(`ALTER TABLE audit_tree_tiles ALTER COLUMN hashes SET STORAGE EXTERNAL`);
    await db.query(`
      CREATE FUNCTION audit_tree_tiles_grow_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.level <> OLD.level OR NEW.idx <> OLD.idx OR length(NEW.hashes) < length(OLD.hashes)
           OR substring(NEW.hashes FROM 1 FOR length(OLD.hashes)) <> OLD.hashes THEN
          RAISE EXCEPTION 'audit_tree_tiles only grows: tile %/% would change', OLD.level, OLD.idx;
        END IF;
        RETURN NEW;
      END $$`);
    await db.query(
      `CREATE TRIGGER audit_tree_tiles_grow_only BEFORE UPDATE ON audit_tree_tiles FOR EACH ROW EXECUTE FUNCTION audit_tree_tiles_grow_only()`,
    );
    await db.query(
      `CREATE TRIGGER audit_tree_tiles_no_delete BEFORE DELETE ON audit_tree_tiles FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change()`,
    );
    await db.query(
      `CREATE TRIGGER audit_tree_tiles_no_truncate BEFORE TRUNCATE ON audit_tree_tiles FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change()`,
    );
    await db.query(TILE_ROOT);
    await db.query(TREE_APPEND);
    await db.query(SEAL_WITH_TREE);
    await db.query(`ALTER TABLE audit_checkpoints ADD COLUMN tree_size bigint, ADD COLUMN root_hash char(64), ADD COLUMN note text`);
    await backfill(db, AuditMerkleTree1767981600000.backfillBatch ?? TREE_BACKFILL_BATCH);
  }

  async down(db: QueryRunner): Promise<void> {
    await new AuditSealByKey1766448000000().up(db);
    await db.query(`ALTER TABLE audit_checkpoints DROP COLUMN tree_size, DROP COLUMN root_hash, DROP COLUMN note`);
    await db.query(`DROP FUNCTION audit_tree_append(bigint, char(64)[])`);
    await db.query(`DROP FUNCTION audit_tree_tile_root(bytea)`);
    await db.query(`DROP TABLE audit_tree_tiles`);
    await db.query(`DROP FUNCTION audit_tree_tiles_grow_only()`);
  }
}

/**
 * The tree over the links sealed before: positions 1 to the head, in batches. A position with
 * no link (only the tables' owner can delete one, and verify fails on it) gets 64 zeros as its
 * data, so that every later leaf keeps its index.
 */
async function backfill(db: QueryRunner, batch: number): Promise<void> {
  const [{ head }] = (await db.query(`SELECT coalesce(max(position), 0)::bigint AS head FROM audit_chain WHERE position >= 1`)) as {
    head: string | number;
  }[];
  const last = Number(head);
  for (let done = 0; done < last; done += batch) {
    await db.query(
      `SELECT audit_tree_append($1::bigint + 1, ARRAY(
         SELECT coalesce(c.hash, repeat('0', 64))::char(64)
         FROM generate_series($1::bigint + 1, least($1::bigint + $2, $3::bigint)) AS p(position)
         LEFT JOIN audit_chain c ON c.position = p.position
         ORDER BY p.position))`,
      [done, batch, last],
    );
  }
}

/** The root of a full tile: 256 hashes, 255 node hashes. */
const TILE_ROOT = `
  CREATE FUNCTION audit_tree_tile_root(tile bytea) RETURNS bytea LANGUAGE plpgsql IMMUTABLE AS $$
  DECLARE
    width integer := length(tile) / 32;
    h bytea[];
  BEGIN
    h := ARRAY(SELECT substring(tile FROM k * 32 + 1 FOR 32) FROM generate_series(0, width - 1) AS k ORDER BY k);
    WHILE width > 1 LOOP
      FOR i IN 1 .. width / 2 LOOP
        h[i] := sha256('\\x01'::bytea || h[2 * i - 1] || h[2 * i]);
      END LOOP;
      width := width / 2;
    END LOOP;
    RETURN h[1];
  END $$`;

/**
 * Appends leaves for the links from position \`first_position\` on (their hashes, in order):
 * level by level, the new hashes go onto the level's last tile, one upsert per tile touched,
 * and each tile that fills sends its root to the level above. Refuses (and so rolls back the
 * batch) when the tree does not end just before \`first_position\`: the tree and the chain
 * never part.
 */
const TREE_APPEND = `
  CREATE FUNCTION audit_tree_append(first_position bigint, link_hashes char(64)[]) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE
    lvl smallint := 0;
    start bigint := first_position - 1;
    incoming bytea[];
    roots bytea[];
    tile_idx bigint;
    tile bytea;
    size bigint;
    i integer;
    take integer;
  BEGIN
    incoming := ARRAY(SELECT sha256('\\x00'::bytea || decode(h, 'hex')) FROM unnest(link_hashes) WITH ORDINALITY AS u(h, o) ORDER BY o);
    WHILE cardinality(incoming) > 0 LOOP
      tile_idx := NULL;
      SELECT idx, hashes INTO tile_idx, tile FROM audit_tree_tiles WHERE level = lvl ORDER BY idx DESC LIMIT 1;
      size := coalesce(tile_idx * 256 + length(tile) / 32, 0);
      IF size <> start THEN
        RAISE EXCEPTION 'audit tree: level % holds % hashes where % were expected', lvl, size, start;
      END IF;
      IF tile_idx IS NULL THEN
        tile_idx := 0;
        tile := ''::bytea;
      ELSIF length(tile) = 8192 THEN
        tile_idx := tile_idx + 1;
        tile := ''::bytea;
      END IF;
      roots := '{}';
      i := 1;
      WHILE i <= cardinality(incoming) LOOP
        take := least(256 - length(tile) / 32, cardinality(incoming) - i + 1);
        tile := tile || (SELECT string_agg(x, ''::bytea ORDER BY o) FROM unnest(incoming[i : i + take - 1]) WITH ORDINALITY AS u(x, o));
        i := i + take;
        INSERT INTO audit_tree_tiles (level, idx, hashes) VALUES (lvl, tile_idx, tile)
          ON CONFLICT (level, idx) DO UPDATE SET hashes = EXCLUDED.hashes;
        IF length(tile) = 8192 THEN
          roots := roots || audit_tree_tile_root(tile);
          tile_idx := tile_idx + 1;
          tile := ''::bytea;
        END IF;
      END LOOP;
      incoming := roots;
      start := start / 256;
      lvl := lvl + 1;
    END LOOP;
  END $$`;

/** Migration 1766448000000's sealer, whose batch also appends its links to the tree. */
const SEAL_WITH_TREE = `
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
    IF n > 0 THEN
      PERFORM audit_tree_append(positions[1], hashes);
    END IF;
    RETURN n;
  END $$`;
