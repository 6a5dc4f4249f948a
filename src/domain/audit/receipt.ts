import type { DigestLine } from './checkpoint';

/**
 * A receipt: a self-contained proof that one audit row is in the log a checkpoint signed
 * (docs/audit-log.md#receipts). Anyone with the log's public key checks it with
 * `node verifier/bridle-audit-verify.mjs --receipt <file> --public-key <key>`:
 *
 * 1. the checkpoint's v1 signature and its C2SP signed note (size, root);
 * 2. `link.hash = hex(SHA-256(UTF-8(link.prevHash ‖ canonical)))`, and `row` is `canonical` parsed;
 * 3. the leaf `SHA-256(0x00 ‖ link hash bytes)` at index position − 1, with the inclusion proof, gives the note's root;
 * 4. with `personal`: `row.personal = hex(SHA-256(UTF-8(salt ‖ text)))`, and `text` parsed holds
 *    the arguments, result and error message shown.
 */
export const RECEIPT_FORMAT = 'bridle-receipt/v1';

export const LINK_RULE = 'hash = hex(SHA-256(UTF-8(prevHash || canonical)))';
export const LEAF_RULE = 'leaf = SHA-256(0x00 || bytes of link hash); RFC 9162 inclusion proof to the checkpoint root';
export const PERSONAL_RULE = 'row.personal = hex(SHA-256(UTF-8(salt || text))); text is JSON {arguments, result, errorMessage}';

export interface Receipt {
  readonly format: typeof RECEIPT_FORMAT;
  readonly seq: number;
  /**
   * `committed`: canonical has the public fields and `personal`, a commitment to the personal
   * fields. `legacy`: a row from before commitments, whose canonical text holds its personal fields.
   * `erased-legacy`: such a row erased; no canonical text, the link alone is proven.
   */
  readonly form: 'committed' | 'legacy' | 'erased-legacy';
  /** The exact text the link hashes; null for an erased legacy row. */
  readonly canonical: string | null;
  /** canonical, parsed: the row's public fields (and its commitment). */
  readonly row: Record<string, unknown> | null;
  readonly erased: { readonly at: string; readonly by: string | null } | null;
  readonly link: { readonly position: number; readonly prevHash: string; readonly hash: string; readonly rule: string };
  readonly leaf: { readonly index: number; readonly hash: string; readonly rule: string };
  /** RFC 9162 inclusion proof (base64, the leaf's sibling first) in the checkpoint's tree. */
  readonly inclusion: { readonly treeSize: number; readonly proof: readonly string[] };
  /** The checkpoint as a digest line: v1 signature, root and C2SP note. */
  readonly checkpoint: DigestLine;
  /** Given to the row's own person on request: what opens the commitment. */
  readonly personal?: {
    readonly salt: string;
    readonly text: string;
    readonly arguments: unknown;
    readonly result: unknown;
    readonly errorMessage: unknown;
    readonly rule: string;
  };
}

/** The export pack's manifest, pack.json (docs/audit-log.md#export-pack). */
export const PACK_FORMAT = 'bridle-audit-pack/v1';

export interface PackManifest {
  readonly format: typeof PACK_FORMAT;
  readonly exportedAt: string;
  /** First and last chain positions in rows.ndjson (inclusive). */
  readonly from: number;
  readonly to: number;
  /** The chain's newest position when exported: a kept checkpoint beyond it means the log was cut. */
  readonly head: number;
  /** The link hash before `from` (64 zeros at position 1). */
  readonly prevHash: string;
  /** The complete subtrees of the leaves before `from`, base64, left to right (empty from position 1): RFC 9162 hashes. */
  readonly leftSubtrees: readonly string[];
  /** Rows linked before this position may be pruned (retention); null when nothing was. */
  readonly prunedBefore: number | null;
  /** When `to` is no checkpoint's size: a consistency proof from `to` to the next checkpoint's, so the tail is signed too. */
  readonly tail: { readonly treeSize: number; readonly proof: readonly string[] } | null;
  readonly rules: { readonly link: string; readonly leaf: string };
}

/** One line of rows.ndjson. */
export interface PackRow {
  readonly position: number;
  readonly seq: number;
  readonly prevHash: string;
  readonly hash: string;
  readonly form: 'committed' | 'legacy' | 'erased-legacy' | 'pruned';
  /** Committed rows only: the text the link hashes (public fields and commitment). */
  readonly canonical?: string;
  readonly erasedAt?: string;
  readonly erasedBy?: string | null;
}
