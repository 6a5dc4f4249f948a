import { Injectable } from '@nestjs/common';
import {
  checkpointDue,
  type CheckpointInterval,
  checkpointMessage,
  type ChainState,
  type SignedCheckpoint,
} from '../../domain/audit/checkpoint';
import { type Hash, MerkleHasher, toHex } from '../../domain/audit/merkle';
import {
  checkpointBody,
  ed25519KeyHash,
  fromBase64,
  parseCheckpointNote,
  signedNote,
  toBase64,
  verifierKey,
} from '../../domain/audit/signed-note';
import { Clock } from '../shared/ports/clock.port';
import type { CheckpointWriter } from './ports/audit-chain-sealer.port';
import { CheckpointSigner, SignatureVerifier } from './ports/checkpoint-signer.port';

/** AUDIT_CHECKPOINT_ROWS and AUDIT_CHECKPOINT_MINUTES, and the log's name in signed notes (AUDIT_LOG_ORIGIN). */
export abstract class AuditCheckpointSettings {
  abstract readonly interval: CheckpointInterval;
  /** The C2SP origin line of the checkpoints' signed notes, also the note key's name. */
  abstract readonly origin: string;
}

/** Why a checkpoint does not hold; null when it does. */
export type CheckpointProblem = 'unknown_key' | 'bad_signature' | 'not_in_chain' | 'bad_note' | 'root_mismatch';

/**
 * Signed checkpoints of the audit chain (docs/decisions/0012-signed-audit-checkpoints.md): when
 * the sealer writes one, and whether one holds. Only the configured key is trusted: a checkpoint
 * carries its public key, but anyone who can write the table could put their own there. Since
 * the Merkle tree (docs/decisions/0016-merkle-tree-over-the-audit-chain.md) each is also signed
 * as a C2SP checkpoint note of the tree's size and root, with the same key.
 */
@Injectable()
export class AuditCheckpoints {
  constructor(
    private readonly signer: CheckpointSigner,
    private readonly verifier: SignatureVerifier,
    private readonly clock: Clock,
    private readonly settings: AuditCheckpointSettings,
    private readonly hasher: MerkleHasher,
  ) {}

  /** The 32-byte Ed25519 public key: the last 32 bytes of its SPKI DER. */
  private rawPublicKey(spki = this.signer.publicKey): Uint8Array {
    return (fromBase64(spki) ?? new Uint8Array(0)).slice(-32);
  }

  /** The note verifier key auditors configure (`<origin>+<key hash>+<base64 key>`), as Go's sumdb/note reads it. */
  get noteVerifierKey(): string {
    return verifierKey(this.hasher.sha256, this.settings.origin, this.rawPublicKey());
  }

  /** For the sealer: whether a checkpoint is due, and the signed checkpoint of the head. */
  readonly writer: CheckpointWriter = {
    due: (state: ChainState) => checkpointDue(this.settings.interval, state, this.now()),
    sign: (state: ChainState, rootHash: Hash): SignedCheckpoint => {
      const fields = { position: state.head.position, seq: state.head.seq, headHash: state.head.hash, createdAt: this.now() };
      const body = checkpointBody({ origin: this.settings.origin, size: state.head.position, rootHash });
      const name = this.settings.origin;
      const signature = fromBase64(this.signer.sign(body)) ?? new Uint8Array(0);
      const keyHash = ed25519KeyHash(this.hasher.sha256, name, this.rawPublicKey());
      return {
        ...fields,
        keyId: this.signer.keyId,
        publicKey: this.signer.publicKey,
        signature: this.signer.sign(checkpointMessage(fields)),
        tree: { size: state.head.position, rootHash: toHex(rootHash), note: signedNote(body, { name, keyHash, signature }) },
      };
    },
  };

  /** Whether the configured key signed exactly this checkpoint (and its note, when it has one). */
  signatureProblem(checkpoint: SignedCheckpoint): CheckpointProblem | null {
    if (checkpoint.keyId !== this.signer.keyId) return 'unknown_key';
    if (!this.verifier.verify(checkpointMessage(checkpoint), checkpoint.signature, this.signer.publicKey)) return 'bad_signature';
    if (checkpoint.tree === null) return null;
    return noteProblem(checkpoint, this.signer.publicKey, this.rawPublicKey(), this.hasher, this.verifier);
  }

  // Milliseconds: the time is signed as ISO text, and must read back from the table the same.
  private now(): Date {
    return new Date(this.clock.now().getTime());
  }
}

/**
 * Whether a checkpoint's note is a C2SP checkpoint of its tree (its size, its root) signed by
 * the Ed25519 key `publicKey` (SPKI, base64; `raw` its 32 bytes) under the note's origin as
 * key name. For the service (the configured key) and the auditor's digest check (a line's key).
 */
export function noteProblem(
  checkpoint: SignedCheckpoint,
  publicKey: string,
  raw: Uint8Array,
  hasher: MerkleHasher,
  verifier: SignatureVerifier,
): 'bad_note' | null {
  const tree = checkpoint.tree;
  if (tree === null) return null;
  const note = parseCheckpointNote(tree.note);
  if (note === null || note.size !== checkpoint.position || tree.size !== checkpoint.position || toHex(note.rootHash) !== tree.rootHash)
    return 'bad_note';
  const keyHash = toHex(ed25519KeyHash(hasher.sha256, note.origin, raw));
  const signed = note.signatures.some(
    (line) =>
      line.name === note.origin && toHex(line.keyHash) === keyHash && verifier.verify(note.body, toBase64(line.signature), publicKey),
  );
  return signed ? null : 'bad_note';
}
