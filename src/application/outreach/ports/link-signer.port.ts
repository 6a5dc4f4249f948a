/**
 * Signs the payload of a link Bridle serves without a login (an unsubscribe link), so that
 * only Bridle can make one. The adapter holds the key, one per purpose; the application
 * decides what is signed and what a payload means.
 */
export abstract class LinkSigner {
  /** A URL-safe token that carries `payload` and its signature. */
  abstract sign(payload: string): string;
  /**
   * The payload of a token this signer made, or null for any other string: forged, altered,
   * truncated, or signed with another key. Compares signatures in constant time.
   */
  abstract open(token: string): string | null;
}
