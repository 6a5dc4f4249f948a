/**
 * A signed checkpoint of the audit chain: the link at `position` (its row's `seq` and its
 * `headHash`) as the sealer wrote it at `createdAt`, signed with the operator's Ed25519 key
 * (docs/decisions/0012-signed-audit-checkpoints.md).
 */
export interface CheckpointFields {
  readonly position: number;
  readonly seq: number;
  readonly headHash: string;
  readonly createdAt: Date;
}

export interface SignedCheckpoint extends CheckpointFields {
  /** The first 16 hex digits of the SHA-256 of the public key (SPKI DER). */
  readonly keyId: string;
  /** The Ed25519 public key, SPKI DER in base64. */
  readonly publicKey: string;
  /** The Ed25519 signature of checkpointMessage(), base64. */
  readonly signature: string;
  /**
   * The Merkle tree over the links up to `position` (docs/decisions/0016-merkle-tree-over-the-audit-chain.md):
   * its size (the position), its root (64 hex digits) and the checkpoint as a C2SP signed note
   * over them. Null on checkpoints written before the tree.
   */
  readonly tree: CheckpointTree | null;
}

export interface CheckpointTree {
  readonly size: number;
  readonly rootHash: string;
  readonly note: string;
}

export const CHECKPOINT_FORMAT = 'bridle-audit-checkpoint:v1';

/**
 * The bytes signed, as UTF-8: the format, position, seq, hash and the time in ISO 8601 (UTC,
 * milliseconds), one per line, no trailing newline. An auditor rebuilds it from a digest line.
 */
export function checkpointMessage(checkpoint: CheckpointFields): string {
  return [CHECKPOINT_FORMAT, checkpoint.position, checkpoint.seq, checkpoint.headHash, checkpoint.createdAt.toISOString()].join('\n');
}

/** How often the sealer writes one: after so many rows or so long, whichever comes first. */
export interface CheckpointInterval {
  readonly rows: number;
  readonly ms: number;
}

/** The chain as the sealer sees it after a batch, in its transaction. */
export interface ChainState {
  readonly head: { readonly position: number; readonly seq: number; readonly hash: string };
  /** The newest checkpoint; null before the first. */
  readonly last: { readonly position: number; readonly createdAt: Date } | null;
  /** When the first link was sealed: the interval's start before the first checkpoint. */
  readonly firstSealedAt: Date;
}

/** Whether the head needs a checkpoint now: links past the last one, and enough of them or enough time. */
export function checkpointDue(interval: CheckpointInterval, state: ChainState, now: Date): boolean {
  const since = state.last?.position ?? 0;
  if (state.head.position <= since) return false;
  const started = state.last?.createdAt ?? state.firstSealedAt;
  return state.head.position - since >= interval.rows || now.getTime() - started.getTime() >= interval.ms;
}

/** One line of a digest file: a checkpoint as exported, as JSON. */
export interface DigestLine {
  readonly position: number;
  readonly seq: number;
  readonly headHash: string;
  readonly time: string;
  readonly keyId: string;
  readonly signature: string;
  readonly publicKey: string;
  /** The tree's root and the signed note, on checkpoints that have them. */
  readonly rootHash?: string;
  readonly note?: string;
}

export function toDigestLine(checkpoint: SignedCheckpoint): DigestLine {
  return {
    position: checkpoint.position,
    seq: checkpoint.seq,
    headHash: checkpoint.headHash,
    time: checkpoint.createdAt.toISOString(),
    keyId: checkpoint.keyId,
    signature: checkpoint.signature,
    publicKey: checkpoint.publicKey,
    ...(checkpoint.tree && { rootHash: checkpoint.tree.rootHash, note: checkpoint.tree.note }),
  };
}

/** Reads one digest line; null when it is not one (the caller names the line). */
export function parseDigestLine(text: string): SignedCheckpoint | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const line = value as Record<string, unknown>;
  const count = (field: unknown): field is number => typeof field === 'number' && Number.isSafeInteger(field) && field > 0;
  const base64 = (field: unknown): field is string => typeof field === 'string' && /^[A-Za-z0-9+/]+={0,2}$/.test(field);
  if (!count(line.position) || !count(line.seq)) return null;
  if (typeof line.headHash !== 'string' || !/^[0-9a-f]{64}$/.test(line.headHash)) return null;
  if (typeof line.keyId !== 'string' || !/^[0-9a-f]{16}$/.test(line.keyId)) return null;
  if (!base64(line.signature) || !base64(line.publicKey)) return null;
  if (typeof line.time !== 'string') return null;
  const createdAt = new Date(line.time);
  // Only the exact form the signer used: anything else could not have been signed as written.
  if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== line.time) return null;
  const tree = treeOf(line);
  if (tree === undefined) return null;
  return {
    position: line.position,
    seq: line.seq,
    headHash: line.headHash,
    createdAt,
    keyId: line.keyId,
    signature: line.signature,
    publicKey: line.publicKey,
    tree,
  };
}

/** A digest line's tree: null when it has none (an older checkpoint), undefined when what it has is malformed. */
function treeOf(line: Record<string, unknown>): CheckpointTree | null | undefined {
  if (line.rootHash === undefined && line.note === undefined) return null;
  if (typeof line.rootHash !== 'string' || !/^[0-9a-f]{64}$/.test(line.rootHash) || typeof line.note !== 'string') return undefined;
  return { size: line.position as number, rootHash: line.rootHash, note: line.note };
}
