import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { webhookBody, webhookMessageId } from '../../../src/domain/webhooks/webhook-delivery';
import { StandardWebhookSigner } from '../../../src/infrastructure/security/standard-webhook-signer';
import { WebhookSecretBox } from '../../../src/infrastructure/security/webhook-secret-box';

const sut = new StandardWebhookSigner();
const message = {
  notificationId: '0b9ad4d4-9f5f-4f57-9a51-2b3a6f3f3c11',
  recipientId: '5d1f6c1e-3a44-4a3e-8d4c-2f5f0c1b2a33',
  event: 'draft.awaiting_review',
  subject: { kind: 'draft' as const, id: '1c2f3e4d-5a6b-4c7d-8e9f-0a1b2c3d4e5f' },
  facts: { action: 'email', expiresAt: '2026-12-02T10:00:00.000Z' },
  createdAt: new Date('2026-12-01T10:00:00.000Z'),
};

function headers(secrets: string[], at = new Date()) {
  const body = webhookBody(message, 'https://bridle.example');
  const id = webhookMessageId(message.notificationId);
  return {
    body,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': sut.sign(secrets, id, at, body),
    },
  };
}

describe(StandardWebhookSigner.name, () => {
  it('makes Standard Webhooks secrets: whsec_ and base64 of 32 random bytes, a new one each time', () => {
    const secrets = [sut.newSecret(), sut.newSecret()];
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    }
    expect(secrets[0]).not.toBe(secrets[1]);
  });

  it("signs so that the standardwebhooks package's verify accepts the body and gives back the event", () => {
    const secret = sut.newSecret();
    const { body, headers: sent } = headers([secret]);
    expect(sent['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, sent)).toEqual({
      type: 'draft.awaiting_review',
      timestamp: '2026-12-01T10:00:00.000Z',
      data: {
        notificationId: message.notificationId,
        recipientId: message.recipientId,
        subject: message.subject,
        facts: message.facts,
        link: 'https://bridle.example/#review?draft=1c2f3e4d-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
      },
    });
  });

  it('is refused under another secret, with a changed body, or for an old timestamp', () => {
    const secret = sut.newSecret();
    const { body, headers: sent } = headers([secret]);
    expect(() => new Webhook(sut.newSecret()).verify(body, sent)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(secret).verify(body.replace('email', 'linkedin_message'), sent)).toThrow(WebhookVerificationError);
    const old = headers([secret], new Date(Date.now() - 10 * 60_000));
    expect(() => new Webhook(secret).verify(old.body, old.headers)).toThrow(/too old/);
  });

  it('signs with the old and the new secret during a rotation, so that either verifies', () => {
    const [current, previous] = [sut.newSecret(), sut.newSecret()];
    const { body, headers: sent } = headers([current, previous]);
    expect(sent['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(current).verify(body, sent)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, sent)).not.toThrow();
  });
});

describe(WebhookSecretBox.name, () => {
  it('opens what it sealed, never holds the secret in the clear, and refuses another key or a changed box', () => {
    const box = WebhookSecretBox.derive('a service secret of at least 32 characters');
    const secret = sut.newSecret();
    const sealed = box.seal(secret);
    expect(sealed).not.toContain(secret.slice('whsec_'.length, 20));
    expect(box.open(sealed)).toBe(secret);
    expect(box.seal(secret)).not.toBe(sealed);
    expect(() => WebhookSecretBox.derive('another service secret, 32 characters').open(sealed)).toThrow();
    const [version, iv, data, tag] = sealed.split('.');
    const flipped = `${data[0] === 'A' ? 'B' : 'A'}${data.slice(1)}`;
    expect(() => box.open([version, iv, flipped, tag].join('.'))).toThrow();
  });
});
