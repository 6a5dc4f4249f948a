import type { ChainState, SignedCheckpoint } from '../../../domain/audit/checkpoint';
import type { Hash } from '../../../domain/audit/merkle';

/**
 * Asked, given the chain after a batch, whether a checkpoint is due, and if so it signs one.
 * Called in the sealing transaction, with the sealer's lock held: no other checkpoint can be
 * written meanwhile.
 */
export interface CheckpointWriter {
  due(state: ChainState): boolean;
  /** The checkpoint of the head, whose Merkle tree (head.position leaves) has root `rootHash`. */
  sign(state: ChainState, rootHash: Hash): SignedCheckpoint;
}

/**
 * Links appended audit rows onto the hash chain (docs/decisions/0008-audit-chain-sealing.md).
 * Appends never wait for it; it runs beside them, in one process at a time.
 */
export abstract class AuditChainSealer {
  /**
   * Seals up to `maxRows` committed, unsealed rows, oldest first.
   * @param waitForOtherSealer wait while another process seals, then seal what it left
   *   (verify's walk must cover every row committed before it), instead of leaving.
   * @param checkpoint asked, in the same transaction, whether the new head gets a signed
   *   checkpoint (docs/decisions/0012-signed-audit-checkpoints.md); not asked when another
   *   process holds the lock or the chain is empty.
   * @returns how many; 0 when there were none, or another process is sealing right now and
   *   `waitForOtherSealer` is not set.
   */
  abstract sealBatch(maxRows: number, waitForOtherSealer?: boolean, checkpoint?: CheckpointWriter): Promise<number>;
}
