/**
 * Links appended audit rows onto the hash chain (docs/decisions/0008-audit-chain-sealing.md).
 * Appends never wait for it; it runs beside them, in one process at a time.
 */
export abstract class AuditChainSealer {
  /**
   * Seals up to `maxRows` committed, unsealed rows, oldest first.
   * @param waitForOtherSealer wait while another process seals, then seal what it left
   *   (verify's walk must cover every row committed before it), instead of leaving.
   * @returns how many; 0 when there were none, or another process is sealing right now and
   *   `waitForOtherSealer` is not set.
   */
  abstract sealBatch(maxRows: number, waitForOtherSealer?: boolean): Promise<number>;
}
