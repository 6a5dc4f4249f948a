/** A new opaque secret and the only form in which it is stored. */
export interface MintedSecret {
  /** Shown once, to its owner, and never stored. */
  readonly secret: string;
  readonly hash: string;
}

/**
 * Opaque bearer secrets: 256 random bits behind a prefix that says what they are. A
 * secret that long is not guessable, so a fast hash (SHA-256) is right for it: a slow one
 * protects short passwords, and would only slow every request.
 */
export abstract class OpaqueTokens {
  abstract mint(prefix: string): MintedSecret;
  abstract hash(secret: string): string;
}
