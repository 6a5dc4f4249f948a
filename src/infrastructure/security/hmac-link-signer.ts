import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { LinkSigner } from '../../application/outreach/ports/link-signer.port';

const KEY_BYTES = 32;
const MAC_BYTES = 32;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** HKDF salt: names the service, so that the same secret used elsewhere derives other keys. */
const SALT = 'bridle';

/**
 * Tokens `base64url(payload) "." base64url(HMAC-SHA256(key, payload))`, under a key of their
 * own: HKDF-SHA256 of the service's secret (JWT_SECRET) with the info `bridle link:<purpose>`.
 * The signing key of access tokens never signs a link, a link's key signs nothing else, and
 * links of two purposes have two keys. The key stays in this object: never logged, never returned.
 */
export class HmacLinkSigner extends LinkSigner {
  private readonly key: Buffer;

  private constructor(key: Buffer) {
    super();
    this.key = key;
  }

  /** @param purpose what the links are for (`unsubscribe`): a different purpose derives a different key. */
  static derive(secret: string, purpose: string): HmacLinkSigner {
    if (!/^[a-z][a-z0-9-]*$/.test(purpose)) throw new Error('A link purpose is a lower-case word');
    return new HmacLinkSigner(Buffer.from(hkdfSync('sha256', secret, SALT, `bridle link:${purpose}`, KEY_BYTES)));
  }

  sign(payload: string): string {
    const bytes = Buffer.from(payload, 'utf8');
    return `${bytes.toString('base64url')}.${this.mac(bytes).toString('base64url')}`;
  }

  open(token: string): string | null {
    const parts = token.split('.');
    if (parts.length !== 2) return null;
    const [encodedPayload, encodedMac] = parts;
    const payload = strictBase64url(encodedPayload);
    const mac = strictBase64url(encodedMac);
    if (payload === null || mac === null || mac.length !== MAC_BYTES) return null;
    if (!timingSafeEqual(mac, this.mac(payload))) return null;
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(payload);
    } catch {
      return null;
    }
  }

  private mac(payload: Buffer): Buffer {
    return createHmac('sha256', this.key).update(payload).digest();
  }
}

/** The bytes of unpadded base64url text, or null unless the text is exactly their encoding (Node's decoder skips what it does not know). */
function strictBase64url(text: string): Buffer | null {
  if (!BASE64URL.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : null;
}
