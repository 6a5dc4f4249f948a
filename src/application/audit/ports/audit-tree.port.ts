import type { TileKey } from '../../../domain/audit/merkle-tiles';

/**
 * The Merkle tree over the audit chain as the database keeps it: tiles
 * (docs/decisions/0016-merkle-tree-over-the-audit-chain.md), written by the sealer.
 */
export abstract class AuditTree {
  /** The tiles asked for, keyed by tileName; a tile not written yet is absent. In the caller's transaction if it has one. */
  abstract tiles(keys: readonly TileKey[]): Promise<ReadonlyMap<string, Uint8Array>>;
  /** How many leaves the tree holds: the chain's head position, once the sealer's batch has committed. */
  abstract size(): Promise<number>;
}
