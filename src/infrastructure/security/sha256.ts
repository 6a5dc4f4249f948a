import { createHash } from 'node:crypto';
import { MerkleHasher } from '../../domain/audit/merkle';

export function sha256(data: Uint8Array): Uint8Array {
  return createHash('sha256').update(data).digest();
}

/** RFC 9162 hashing with Node's SHA-256, for the audit tree. */
export const merkleHasher = new MerkleHasher(sha256);
