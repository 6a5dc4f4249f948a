/** Webhook secrets and signatures, as Standard Webhooks has them. */
export abstract class WebhookSigner {
  /** A new secret: `whsec_` and the base64 of fresh random bytes. */
  abstract newSecret(): string;
  /** The `webhook-signature` header: `v1,<base64 HMAC-SHA256>` per secret, space-separated. */
  abstract sign(secrets: readonly string[], messageId: string, at: Date, body: string): string;
}
