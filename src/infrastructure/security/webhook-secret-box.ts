import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const KEY_BYTES = 32;
const IV_BYTES = 12;
/** HKDF salt, as the other keys derived from the service's secret: names the service. */
const SALT = 'bridle';
const VERSION = 'v1';

/**
 * Seals webhook secrets for the database: AES-256-GCM under a key of their own, HKDF-SHA256 of
 * the service's secret (JWT_SECRET) with the info `bridle webhook-secret`. A dump of the
 * database alone does not give the secrets (to sign deliveries Bridle must read them back, so
 * a hash would not do); every process that shares JWT_SECRET opens them. Changing JWT_SECRET
 * makes the stored secrets unreadable: rotate every endpoint's secret afterwards.
 * Sealed form: `v1.<iv>.<ciphertext>.<tag>`, base64url.
 */
export class WebhookSecretBox {
  private constructor(private readonly key: Buffer) {}

  static derive(secret: string): WebhookSecretBox {
    return new WebhookSecretBox(Buffer.from(hkdfSync('sha256', secret, SALT, 'bridle webhook-secret', KEY_BYTES)));
  }

  seal(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv, sealed, cipher.getAuthTag()]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** @throws Error when it was sealed under another key, or changed. */
  open(sealed: string): string {
    const [version, iv, data, tag] = sealed.split('.');
    if (version !== VERSION || !iv || !data || !tag) throw new Error('a sealed webhook secret is not in the v1 form');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}
