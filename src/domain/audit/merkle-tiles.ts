import { type Hash, type MerkleHasher, type Subtree, type SubtreeHashes } from './merkle';

/**
 * The tree's hashes as the database keeps them, in tiles after C2SP tlog-tiles (height 8): the
 * tile at tile level L and index N holds the hashes of tree level 8·L numbered N·256 to
 * N·256 + 255, concatenated (32 bytes each). A tile of fewer than 256 hashes is the partial
 * tile at the tree's right edge; it is rewritten as it grows, and a hash, once written, never
 * changes. Level-8·(L+1) hash j is the root of level-L tile j, so it is written when that tile
 * is full. Any complete subtree's hash is one stored hash (its level a multiple of 8) or the
 * root of at most 128 consecutive hashes of one tile.
 */
export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 256;
export const HASH_SIZE = 32;

export interface TileKey {
  /** Tile level L: its hashes are of tree level 8·L. */
  readonly level: number;
  readonly index: number;
}

/** Where a complete subtree's hash comes from: `count` consecutive hashes of one tile from `from`. */
export interface TileSpan {
  readonly tile: TileKey;
  readonly from: number;
  readonly count: number;
}

export function tileSpanOf(subtree: Subtree): TileSpan {
  const level = Math.floor(subtree.level / TILE_HEIGHT);
  const count = 2 ** (subtree.level % TILE_HEIGHT);
  const first = subtree.index * count;
  return { tile: { level, index: Math.floor(first / TILE_WIDTH) }, from: first % TILE_WIDTH, count };
}

/** The tiles to read for these subtrees, each once. */
export function tilesOf(subtrees: readonly Subtree[]): TileKey[] {
  const tiles = new Map<string, TileKey>();
  for (const subtree of subtrees) {
    const { tile } = tileSpanOf(subtree);
    tiles.set(tileName(tile), tile);
  }
  return [...tiles.values()];
}

export function tileName(tile: TileKey): string {
  return `${tile.level}/${tile.index}`;
}

/**
 * Complete subtrees' hashes from tiles read (keyed by tileName). A tile read may be longer
 * than a smaller tree needs (the tree grew since): only its prefix is used.
 * @throws MissingTilesError when a tile is missing or too short: the tiles do not cover that subtree.
 */
export function hashesFromTiles(hasher: MerkleHasher, tiles: ReadonlyMap<string, Uint8Array>): SubtreeHashes {
  return (subtree) => {
    const span = tileSpanOf(subtree);
    const tile = tiles.get(tileName(span.tile));
    const end = (span.from + span.count) * HASH_SIZE;
    if (tile === undefined || tile.length < end)
      throw new Error(`the audit tree's tiles do not hold subtree ${subtree.level}/${subtree.index}`);
    const level: Hash[] = [];
    for (let i = span.from; i < span.from + span.count; i++) level.push(tile.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE));
    return perfectRoot(hasher, level);
  };
}

/** The root of a power-of-two count of hashes. */
export function perfectRoot(hasher: MerkleHasher, hashes: readonly Hash[]): Hash {
  let level = [...hashes];
  while (level.length > 1) {
    const next: Hash[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(hasher.node(level[i], level[i + 1]));
    level = next;
  }
  return level[0];
}

/**
 * Every tile of the tree over these leaf hashes, as the sealer writes them: the reference the
 * database's tiles are tested against, and how a benchmark fills a large tree directly.
 */
export function buildTiles(hasher: MerkleHasher, leafHashes: readonly Hash[]): Map<string, Uint8Array> {
  const tiles = new Map<string, Uint8Array>();
  let level: readonly Hash[] = leafHashes;
  for (let tileLevel = 0; level.length > 0; tileLevel++) {
    const above: Hash[] = [];
    for (let index = 0; index * TILE_WIDTH < level.length; index++) {
      const hashes = level.slice(index * TILE_WIDTH, (index + 1) * TILE_WIDTH);
      const tile = new Uint8Array(hashes.length * HASH_SIZE);
      hashes.forEach((hash, i) => tile.set(hash, i * HASH_SIZE));
      tiles.set(tileName({ level: tileLevel, index }), tile);
      if (hashes.length === TILE_WIDTH) above.push(perfectRoot(hasher, hashes));
    }
    level = above;
  }
  return tiles;
}

/** The tiles read do not hold a subtree the tree of that size must have. */
export class MissingTilesError extends Error {
  constructor(readonly subtree: Subtree) {
    super(`the audit tree's tiles do not hold subtree ${subtree.level}/${subtree.index}`);
  }
}
