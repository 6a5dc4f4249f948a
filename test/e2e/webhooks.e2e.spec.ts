import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { OutboundNetwork } from '../../src/infrastructure/security/guarded-outbound-fetch';
import type { SignedInUser } from '../support/accounts';
import { leads, runCycle } from '../support/outreach';
import { useTestApp } from '../support/test-app';
import { startWebhookReceiver, until, type WebhookReceiver } from '../support/webhook-receiver';

/** Names the receiver's certificate holds; the resolver maps each to 127.0.0.1. */
const NAMES = ['receiver.test', 'healthy.test', 'loopback.test', 'moved.test', 'stuck.test', 'slow.test', 'rotated.test'];
/** Allowed to resolve to loopback (OUTBOUND_PRIVATE_HOSTS): all but loopback.test, which shows the default. */
const ALLOWED = NAMES.filter((name) => name !== 'loopback.test');

interface WebhookBody {
  id: string;
  url: string;
  enabled: boolean;
  disabledReason: string | null;
  secretHint: string;
  secret?: string;
}

/**
 * Webhooks through the real app: registration over HTTP, a held draft reaching a local HTTPS
 * receiver signed as Standard Webhooks, the delivery log, and targets the guarded fetch refuses
 * or cuts without holding up a healthy one.
 */
describe('webhooks', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver(NAMES);
  });
  const sut = useTestApp({
    env: () => ({
      OUTBOUND_PRIVATE_HOSTS: ALLOWED.join(','),
      WEBHOOK_POLL_MS: '100',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_CONCURRENCY: '4',
      WEBHOOK_ENDPOINTS_PER_USER: '6',
      WEBHOOK_RETRY_DELAYS_MS: '60000',
    }),
    outboundNetwork: () =>
      new OutboundNetwork(
        (name) => (NAMES.includes(name) ? Promise.resolve(['127.0.0.1']) : Promise.reject(new Error(name))),
        receiver.fixture.ca,
      ),
    beforeClose: () => receiver?.close(),
  });
  const alice = sut.user();
  const bob = sut.user();
  const admin = sut.user({ admin: true });

  const register = (user: SignedInUser, body: Record<string, unknown>) =>
    request(sut.http).post(`/api/${user.userId}/webhooks`).set(user.auth).send(body);

  /** Holds one draft for review: the notification every endpoint of `user` receives. @returns the draft's id */
  async function heldDraft(user: SignedInUser, tag: string): Promise<string> {
    const base = `/api/${user.userId}/campaigns`;
    const created = await request(sut.http).post(base).set(user.auth).send({ name: tag, approvalMode: 'all' }).expect(201);
    const campaignId = (created.body as { id: string }).id;
    await request(sut.http)
      .post(`${base}/${campaignId}/leads`)
      .set(user.auth)
      .send({ leads: leads(1, tag) })
      .expect(201);
    await request(sut.http).post(`${base}/${campaignId}/start`).set(user.auth).expect(200);
    expect((await runCycle(sut.http, user, campaignId)).status).toBe('awaiting_review');
    const drafts = await request(sut.http)
      .get(`/api/${user.userId}/outreach/drafts?status=awaiting_review&limit=100`)
      .set(user.auth)
      .expect(200);
    return (drafts.body as { items: { id: string; campaign: { id: string } }[] }).items.find((draft) => draft.campaign.id === campaignId)!
      .id;
  }

  it('shows the secret once, and a held draft reaches the endpoint within 5 s, signed so the package verifies it', async () => {
    const created = await register(alice, { url: receiver.url('receiver.test'), description: 'Ops inbox' }).expect(201);
    const webhook = created.body as WebhookBody;
    expect(webhook).toMatchObject({ url: receiver.url('receiver.test'), enabled: true, disabledReason: null, events: null });
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhook.secretHint).toBe(webhook.secret!.slice(-5, -1));
    const listed = await request(sut.http).get(`/api/${alice.userId}/webhooks`).set(alice.auth).expect(200);
    expect(listed.body).toEqual([expect.not.objectContaining({ secret: expect.anything() })]);
    expect(JSON.stringify(listed.body)).not.toContain(webhook.secret!.slice(6, 30));

    const draftId = await heldDraft(alice, 'first');
    await until('the draft reaches the receiver', () => receiver.accepted('receiver.test').length > 0, 5_000);

    const [delivered] = receiver.accepted('receiver.test');
    const event = new Webhook(webhook.secret!).verify(delivered.body, {
      'webhook-id': delivered.id,
      'webhook-timestamp': delivered.timestamp,
      'webhook-signature': delivered.signature,
    });
    expect(event).toEqual({
      type: 'draft.awaiting_review',
      timestamp: expect.any(String),
      data: {
        notificationId: delivered.id.replace(/^msg_/, ''),
        recipientId: alice.userId,
        subject: { kind: 'draft', id: draftId },
        facts: expect.objectContaining({ action: 'linkedin_scrape_profile' }),
        link: `${sut.http}/#review?draft=${draftId}`,
      },
    });
    const log = await request(sut.http).get(`/api/${alice.userId}/webhooks/${webhook.id}/deliveries`).set(alice.auth).expect(200);
    expect(log.body).toEqual({
      items: [
        expect.objectContaining({
          messageId: delivered.id,
          event: 'draft.awaiting_review',
          attempt: 1,
          outcome: 'delivered',
          status: 200,
          failure: null,
        }),
      ],
      nextCursor: null,
    });
  });

  it.each([
    ['http', { url: 'http://receiver.example.com/hook' }, /^url must use https/],
    ['user info', { url: 'https://user:pw@receiver.example.com/hook' }, /^url must not hold user info/],
    ['an IPv4 literal', { url: 'https://127.0.0.1/hook' }, /^url must name a host, not an IP address/],
    ['an IPv4-mapped IPv6 literal', { url: 'https://[::ffff:7f00:1]/hook' }, /^url must name a host, not an IP address/],
    ['a hexadecimal IPv4 literal', { url: 'https://0x7f.1/hook' }, /^url must name a host, not an IP address/],
    ['a URL over 2 000 characters', { url: `https://receiver.example.com/${'a'.repeat(2_000)}` }, /^url must be at most 2000 characters/],
    ['an unknown event', { url: 'https://receiver.example.com/hook', events: ['draft.nope'] }, /^events holds unknown events: draft.nope/],
    ['no event', { url: 'https://receiver.example.com/hook', events: [] }, /^events must name at least one event/],
    ['a URL that is no string', { url: 42 }, /url must be a string/],
    ["allPeople on a person's endpoint", { url: 'https://receiver.example.com/hook', allPeople: true }, /allPeople/],
    ['a secret of its own', { url: 'https://receiver.example.com/hook', secret: 'whsec_mine' }, /secret/],
  ])('refuses %s with a 400 that names the field', async (_what, body, message) => {
    const refused = await register(bob, body).expect(400);
    expect(refused.body).toMatchObject({ statusCode: 400, message: expect.stringMatching(message) });
    expect((refused.body as { code: string }).code).toMatch(/^(WEBHOOKS\.INVALID|VALIDATION\.FAILED)$/);
  });

  it("keeps a person's endpoints to themselves and the deployment's to admins", async () => {
    const created = (await register(bob, { url: 'https://bob.example.com/hook' }).expect(201)).body as WebhookBody;
    await request(sut.http).get(`/api/${bob.userId}/webhooks/${created.id}`).set(alice.auth).expect(403);
    await request(sut.http).get(`/api/${alice.userId}/webhooks/${created.id}`).set(alice.auth).expect(404);
    await request(sut.http).get('/admin/webhooks').set(bob.auth).expect(403);
    const deployment = await request(sut.http)
      .post('/admin/webhooks')
      .set(admin.auth)
      .send({ url: 'https://ops.example.com/hook', allPeople: true, events: ['policy.stored'] })
      .expect(201);
    expect(deployment.body).toMatchObject({ allPeople: true, events: ['policy.stored'], secret: expect.stringMatching(/^whsec_/) });
    const listed = await request(sut.http).get('/admin/webhooks').set(admin.auth).expect(200);
    expect((listed.body as WebhookBody[]).map((webhook) => webhook.url)).toEqual(['https://ops.example.com/hook']);
    await request(sut.http).delete(`/api/${bob.userId}/webhooks/${created.id}`).set(bob.auth).expect(204);
  });

  it('disables, enables, rotates (both secrets signing for a while) and deletes, and holds a person to the endpoint limit', async () => {
    const user = alice;
    const rotated = (await register(user, { url: receiver.url('rotated.test') }).expect(201)).body as WebhookBody;
    const path = `/api/${user.userId}/webhooks/${rotated.id}`;
    const off = await request(sut.http).patch(path).set(user.auth).send({ enabled: false }).expect(200);
    expect(off.body).toMatchObject({ enabled: false, disabledReason: 'owner' });
    const on = await request(sut.http).patch(path).set(user.auth).send({ enabled: true, description: 'back' }).expect(200);
    expect(on.body).toMatchObject({ enabled: true, disabledReason: null, description: 'back' });

    expect((await request(sut.http).patch(path).set(user.auth).send({}).expect(400)).body).toMatchObject({
      message: /^Send at least one of url/,
    });
    const tooLong = await request(sut.http).post(`${path}/secret?keepPreviousHours=169`).set(user.auth).expect(400);
    expect(tooLong.body).toMatchObject({ message: expect.stringContaining('keepPreviousHours') });
    const renewed = (await request(sut.http).post(`${path}/secret`).set(user.auth).expect(200)).body as WebhookBody;
    expect(renewed.secret).not.toBe(rotated.secret);
    await heldDraft(user, 'rotated');
    await until('the draft reaches the rotated endpoint', () => receiver.accepted('rotated.test').length > 0, 5_000);
    const [signed] = receiver.accepted('rotated.test');
    expect(signed.signature.split(' ')).toHaveLength(2);
    receiver.verifyAll('rotated.test', renewed.secret!);
    receiver.verifyAll('rotated.test', rotated.secret!);

    const held = (await request(sut.http).get(`/api/${user.userId}/webhooks`).set(user.auth).expect(200)).body as WebhookBody[];
    for (let i = held.length; i < 6; i++) await register(user, { url: `https://spare-${i}.example.com/hook` }).expect(201);
    const refused = await register(user, { url: 'https://one-too-many.example.com/hook' }).expect(409);
    expect(refused.body).toMatchObject({ code: 'WEBHOOKS.LIMIT_REACHED' });

    await request(sut.http).delete(path).set(user.auth).expect(204);
    await request(sut.http).get(path).set(user.auth).expect(404);
    await request(sut.http).get(`${path}/deliveries`).set(user.auth).expect(404);
  });

  it('refuses a loopback target, a redirect and a stuck receiver, and delivers to a healthy one meanwhile', async () => {
    const user = bob;
    let healthyGotIt!: () => void;
    const healthyReceived = new Promise<void>((resolve) => (healthyGotIt = resolve));
    receiver.answer('healthy.test', '/hook', { status: 200, hold: () => (healthyGotIt(), Promise.resolve()) });
    receiver.answer('moved.test', '/hook', { status: 307, headers: { location: receiver.url('healthy.test', '/elsewhere') } });
    receiver.answer('stuck.test', '/hook', { status: 200, hold: () => new Promise(() => undefined) });
    // Answers only once the healthy endpoint has its message: delivered only if the two are sent side by side.
    receiver.answer('slow.test', '/hook', { status: 200, hold: () => healthyReceived });
    const ids: Record<string, string> = {};
    for (const name of ['loopback.test', 'moved.test', 'stuck.test', 'slow.test', 'healthy.test']) {
      ids[name] = ((await register(user, { url: receiver.url(name) }).expect(201)).body as WebhookBody).id;
    }

    await heldDraft(user, 'targets');
    await until('the healthy and the slow endpoint have the draft', () => receiver.accepted('slow.test').length > 0, 5_000);

    const outcome = async (name: string) => {
      await until(`${name} has an attempt`, async () => (await log(name)).length > 0, 5_000);
      return (await log(name))[0];
    };
    const log = async (name: string) =>
      (
        (await request(sut.http).get(`/api/${user.userId}/webhooks/${ids[name]}/deliveries`).set(user.auth).expect(200)).body as {
          items: { outcome: string; status: number | null; failure: string | null }[];
        }
      ).items;
    expect(await outcome('healthy.test')).toMatchObject({ outcome: 'delivered', status: 200 });
    expect(await outcome('slow.test')).toMatchObject({ outcome: 'delivered', status: 200 });
    expect(await outcome('loopback.test')).toMatchObject({ outcome: 'retrying', status: null, failure: 'address' });
    expect(await outcome('moved.test')).toMatchObject({ outcome: 'retrying', status: null, failure: 'redirect' });
    expect(await outcome('stuck.test')).toMatchObject({ outcome: 'retrying', status: null, failure: 'timeout' });
    expect(receiver.fixture.count('loopback.test', '/hook')).toBe(0);
    expect(receiver.fixture.count('healthy.test', '/elsewhere')).toBe(0);
  });
});
