/**
 * Links appended audit rows onto the hash chain (docs/decisions/0008-audit-chain-sealing.md).
 * Appends never wait for it; it runs beside them, in one process at a time.
 */
export abstract class AuditChainSealer {
  /**
   * Seals up to `maxRows` committed, unsealed rows, oldest first.
   * @returns how many; 0 when there were none or another process is sealing right now.
   */
  abstract sealBatch(maxRows: number): Promise<number>;
}
