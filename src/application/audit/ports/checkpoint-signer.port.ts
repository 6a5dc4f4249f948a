/** The operator's Ed25519 key, which signs audit checkpoints (AUDIT_SIGNING_KEY). */
export abstract class CheckpointSigner {
  /** The first 16 hex digits of the SHA-256 of the public key (SPKI DER). */
  abstract readonly keyId: string;
  /** The public key, SPKI DER in base64: what an auditor checks signatures with. */
  abstract readonly publicKey: string;
  /** @returns the signature of the message's UTF-8 bytes, base64. */
  abstract sign(message: string): string;
}

/** Checks Ed25519 signatures; needs no private key, so an auditor's machine has one too. */
export abstract class SignatureVerifier {
  /** The key id of a public key (SPKI DER, base64); null when it is not an Ed25519 public key. */
  abstract keyIdOf(publicKey: string): string | null;
  /** Whether `signature` (base64) is the public key's signature of the message's UTF-8 bytes. */
  abstract verify(message: string, signature: string, publicKey: string): boolean;
}
