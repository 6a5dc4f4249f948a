/**
 * What a receipt or an export pack shows of a linked row (docs/audit-log.md#receipts): the
 * link, and the row's canonical text, which the link hashes (`hash = sha256(prevHash ‖
 * canonical)`). A row of the committed form (docs/decisions/0017-erasure-and-retention.md)
 * has a canonical text without personal data: its public fields and the commitment.
 */
export interface LinkedRowEvidence {
  readonly position: number;
  readonly seq: number;
  readonly prevHash: string;
  readonly hash: string;
  /**
   * `committed`: the canonical text holds the public fields and the commitment. `legacy`: a row
   * from before commitments, whose canonical text holds its personal fields (given in receipts
   * for the row's own person or an admin, never in a pack). `erased-legacy`: such a row erased,
   * whose text is gone; its link is checked by its place. `pruned`: the row is gone behind the
   * retention horizon; its link stays.
   */
  readonly form: 'committed' | 'legacy' | 'erased-legacy' | 'pruned';
  readonly canonical: string | null;
  readonly erasedAt: Date | null;
  readonly erasedBy: string | null;
}

/** The salt and the exact text a row's commitment hashes: `personal = sha256(salt ‖ text)`. */
export interface PersonalOpening {
  readonly salt: string;
  readonly text: string;
}

export interface RowEvidence {
  readonly seq: number;
  readonly actorId: string;
  /** Null while the row waits for the sealer. */
  readonly link: LinkedRowEvidence | null;
  /** Null for a row from before commitments or an erased one. */
  readonly opening: PersonalOpening | null;
}

/** Reads rows with their links as receipts and export packs show them. */
export abstract class AuditEvidence {
  /** The row numbered `seq`, or null when there is none. `withLegacyText`: give a legacy row's canonical text (personal data). */
  abstract row(seq: number, withLegacyText: boolean): Promise<RowEvidence | null>;
  /** The links from position `from` to `to` (inclusive) with their rows, in position order, read in batches. Legacy rows without their text. */
  abstract range(from: number, to: number): AsyncIterable<LinkedRowEvidence>;
  /** The newest link's position; 0 for an empty chain. */
  abstract head(): Promise<number>;
}
