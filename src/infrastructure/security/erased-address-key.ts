import { createHmac, hkdfSync } from 'node:crypto';

const KEY_BYTES = 32;
/** SHA-256's block: HMAC pads its key to it. */
const BLOCK_BYTES = 64;
/** HKDF salt, as HmacLinkSigner's: names the service. */
const SALT = 'bridle';

/**
 * The key of erased do-not-contact entries (docs/decisions/0017-erasure-and-retention.md): an
 * address on a do-not-contact list that an erasure touches is kept as HMAC-SHA256 of its
 * canonical form under this key, so the person is still never contacted while the database
 * (and a dump of it) no longer holds the address. The key is HKDF-SHA256 of the service's
 * secret (JWT_SECRET) with the info `bridle erased-address`: it is in no table, so a dump alone
 * cannot test guesses against a hash, and every process that shares JWT_SECRET computes it.
 */
export class ErasedAddressKey {
  private constructor(private readonly key: Buffer) {}

  static derive(secret: string): ErasedAddressKey {
    return new ErasedAddressKey(Buffer.from(hkdfSync('sha256', secret, SALT, 'bridle erased-address', KEY_BYTES)));
  }

  /** The keyed hash of a canonical value (an email key, a canonical profile URL), hex. */
  hash(value: string): string {
    return createHmac('sha256', this.key).update(value, 'utf8').digest('hex');
  }

  /**
   * The key XOR HMAC's inner and outer pads, hex: with them SQL computes the same HMAC with
   * sha256() alone (RFC 2104: sha256(outer ‖ sha256(inner ‖ text))), as the outreach queries compare.
   */
  pads(): { readonly inner: string; readonly outer: string } {
    const block = Buffer.alloc(BLOCK_BYTES);
    this.key.copy(block);
    const xor = (pad: number) => Buffer.from(block.map((byte) => byte ^ pad)).toString('hex');
    return { inner: xor(0x36), outer: xor(0x5c) };
  }
}
