import {
  consistencyProof,
  consistencySubtrees,
  type Hash,
  inclusionProof,
  inclusionSubtrees,
  type MerkleHasher,
  rootHash,
  rootSubtrees,
  type Subtree,
  type SubtreeHashes,
} from '../../domain/audit/merkle';
import { hashesFromTiles, tilesOf } from '../../domain/audit/merkle-tiles';
import type { AuditTree } from './ports/audit-tree.port';

/** The hashes of these complete subtrees, from one read of their tiles. @throws Error when the tiles do not hold them. */
export async function subtreeHashes(tree: AuditTree, hasher: MerkleHasher, subtrees: readonly Subtree[]): Promise<SubtreeHashes> {
  return hashesFromTiles(hasher, await tree.tiles(tilesOf(subtrees)));
}

/** The root of the tree of the first `size` leaves, from the stored tiles. */
export async function treeRootFromTiles(tree: AuditTree, hasher: MerkleHasher, size: number): Promise<Hash> {
  return rootHash(hasher, size, await subtreeHashes(tree, hasher, rootSubtrees(size)));
}

/** RFC 9162 inclusion proof of leaf `index` in the tree of `size` leaves, from the stored tiles: one read. */
export async function inclusionProofFromTiles(tree: AuditTree, hasher: MerkleHasher, index: number, size: number): Promise<Hash[]> {
  return inclusionProof(hasher, index, size, await subtreeHashes(tree, hasher, inclusionSubtrees(index, size)));
}

/** RFC 9162 consistency proof between the trees of `first` and `second` leaves, from the stored tiles: one read. */
export async function consistencyProofFromTiles(tree: AuditTree, hasher: MerkleHasher, first: number, second: number): Promise<Hash[]> {
  return consistencyProof(hasher, first, second, await subtreeHashes(tree, hasher, consistencySubtrees(first, second)));
}
