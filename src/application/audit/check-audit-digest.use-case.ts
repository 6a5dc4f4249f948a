import { Injectable } from '@nestjs/common';
import { checkpointMessage, type SignedCheckpoint } from '../../domain/audit/checkpoint';
import { SignatureVerifier } from './ports/checkpoint-signer.port';

export type DigestProblem = 'key_id_mismatch' | 'untrusted_key' | 'bad_signature' | 'out_of_order';

export interface DigestCheck {
  readonly checked: number;
  /** The key ids that signed the lines checked. */
  readonly keyIds: readonly string[];
  readonly firstBad: { readonly position: number; readonly problem: DigestProblem } | null;
}

/**
 * The auditor's check of a digest file, with no database: every line signed by the public key
 * it carries (or by `trustedPublicKey`, the key the operator gave the auditor), its key id that
 * key's, and positions rising. What it cannot tell alone is whether the chain still holds
 * them: that is `audit-verify --against`, on the database.
 */
@Injectable()
export class CheckAuditDigestUseCase {
  constructor(private readonly verifier: SignatureVerifier) {}

  execute(lines: readonly SignedCheckpoint[], trustedPublicKey?: string): DigestCheck {
    const keyIds = new Set<string>();
    let previous = 0;
    let checked = 0;
    for (const line of lines) {
      checked += 1;
      const bad = (problem: DigestProblem): DigestCheck => ({
        checked,
        keyIds: [...keyIds],
        firstBad: { position: line.position, problem },
      });
      if (line.position <= previous) return bad('out_of_order');
      previous = line.position;
      if (trustedPublicKey !== undefined && line.publicKey !== trustedPublicKey) return bad('untrusted_key');
      if (this.verifier.keyIdOf(line.publicKey) !== line.keyId) return bad('key_id_mismatch');
      if (!this.verifier.verify(checkpointMessage(line), line.signature, line.publicKey)) return bad('bad_signature');
      keyIds.add(line.keyId);
    }
    return { checked, keyIds: [...keyIds], firstBad: null };
  }
}
