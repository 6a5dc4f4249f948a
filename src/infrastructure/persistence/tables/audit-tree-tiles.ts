import { z } from 'zod';
import { type Hash, type MerkleHasher, rootHash, rootSubtrees } from '../../../domain/audit/merkle';
import { HASH_SIZE, hashesFromTiles, type TileKey, TILE_WIDTH, tileName, tilesOf } from '../../../domain/audit/merkle-tiles';
import { type Sql, selectRow, selectRows, sql } from '../sql';

const TILE_ROW = z.object({ level: z.coerce.number().int(), idx: z.coerce.number().int(), hashes: z.instanceof(Uint8Array) });
const SIZE_ROW = z.object({ size: z.coerce.number().int() });

/**
 * Reads of `audit_tree_tiles` (migration 1767981600000), whose one writer is `audit_seal` in the
 * database: the tiles asked for, in one statement, keyed by tileName.
 */
export async function readTiles(db: Sql, keys: readonly TileKey[]): Promise<Map<string, Uint8Array>> {
  if (keys.length === 0) return new Map();
  const rows = await selectRows(
    db,
    sql`SELECT t.level, t.idx, t.hashes FROM audit_tree_tiles t
        JOIN unnest(${keys.map((key) => key.level)}::smallint[], ${keys.map((key) => key.index)}::bigint[]) AS k(level, idx)
          ON t.level = k.level AND t.idx = k.idx`,
    TILE_ROW,
  );
  return new Map(rows.map((row) => [tileName({ level: row.level, index: row.idx }), row.hashes]));
}

/** How many leaves the tree holds: from its last level-0 tile. */
export async function treeSize(db: Sql): Promise<number> {
  const row = await selectRow(
    db,
    sql`SELECT idx * ${TILE_WIDTH} + length(hashes) / ${HASH_SIZE} AS size FROM audit_tree_tiles WHERE level = 0 ORDER BY idx DESC LIMIT 1`,
    SIZE_ROW,
  );
  return row?.size ?? 0;
}

/** The root of the tree of the first `size` leaves: one read of at most one tile per level. */
export async function treeRoot(db: Sql, hasher: MerkleHasher, size: number): Promise<Hash> {
  const subtrees = rootSubtrees(size);
  return rootHash(hasher, size, hashesFromTiles(hasher, await readTiles(db, tilesOf(subtrees))));
}
