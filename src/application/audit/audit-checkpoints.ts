import { Injectable } from '@nestjs/common';
import {
  checkpointDue,
  type CheckpointInterval,
  checkpointMessage,
  type ChainState,
  type SignedCheckpoint,
} from '../../domain/audit/checkpoint';
import { Clock } from '../shared/ports/clock.port';
import type { CheckpointWriter } from './ports/audit-chain-sealer.port';
import { CheckpointSigner, SignatureVerifier } from './ports/checkpoint-signer.port';

/** AUDIT_CHECKPOINT_ROWS and AUDIT_CHECKPOINT_MINUTES. */
export abstract class AuditCheckpointSettings {
  abstract readonly interval: CheckpointInterval;
}

/** Why a checkpoint does not hold; null when it does. */
export type CheckpointProblem = 'unknown_key' | 'bad_signature' | 'not_in_chain';

/**
 * Signed checkpoints of the audit chain (docs/decisions/0012-signed-audit-checkpoints.md): when
 * the sealer writes one, and whether one holds. Only the configured key is trusted: a checkpoint
 * carries its public key, but anyone who can write the table could put their own there.
 */
@Injectable()
export class AuditCheckpoints {
  constructor(
    private readonly signer: CheckpointSigner,
    private readonly verifier: SignatureVerifier,
    private readonly clock: Clock,
    private readonly settings: AuditCheckpointSettings,
  ) {}

  /** For the sealer: signs the head when a checkpoint is due. */
  readonly writer: CheckpointWriter = (state: ChainState): SignedCheckpoint | null => {
    // Milliseconds: the time is signed as ISO text, and must read back from the table the same.
    const now = new Date(this.clock.now().getTime());
    if (!checkpointDue(this.settings.interval, state, now)) return null;
    const fields = { position: state.head.position, seq: state.head.seq, headHash: state.head.hash, createdAt: now };
    return {
      ...fields,
      keyId: this.signer.keyId,
      publicKey: this.signer.publicKey,
      signature: this.signer.sign(checkpointMessage(fields)),
    };
  };

  /** Whether the configured key signed exactly this checkpoint. */
  signatureProblem(checkpoint: SignedCheckpoint): CheckpointProblem | null {
    if (checkpoint.keyId !== this.signer.keyId) return 'unknown_key';
    return this.verifier.verify(checkpointMessage(checkpoint), checkpoint.signature, this.signer.publicKey) ? null : 'bad_signature';
  }
}
