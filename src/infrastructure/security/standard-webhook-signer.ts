import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { WebhookSigner } from '../../application/webhooks/ports/webhook-signer.port';

/** Random bytes in a secret: Standard Webhooks asks for 24 to 64. */
const SECRET_BYTES = 32;

/**
 * Secrets and signatures by the `standardwebhooks` package, so that a receiver verifying with
 * it (`new Webhook(secret).verify(body, headers)`) accepts what Bridle sends: the signature of
 * `<webhook-id>.<webhook-timestamp>.<body>`, HMAC-SHA256 under the secret's bytes.
 */
export class StandardWebhookSigner extends WebhookSigner {
  newSecret(): string {
    return `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
  }

  sign(secrets: readonly string[], messageId: string, at: Date, body: string): string {
    return secrets.map((secret) => new Webhook(secret).sign(messageId, at, body)).join(' ');
  }
}
