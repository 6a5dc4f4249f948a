import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { SweepStaleActionsUseCase } from '../../src/application/outreach/sweep-stale-actions.use-case';
import { OutboundNetwork } from '../../src/infrastructure/security/guarded-outbound-fetch';
import { ShiftedClock } from '../fakes/fixed-clock';
import { mailsRecorded } from '../support/notifications';
import { cyclesUntilIdle, startedCampaign } from '../support/outreach';
import { type ReceivedMail, SmtpTestServer } from '../support/smtp-test-server';
import { useTestApp } from '../support/test-app';
import { startWebhookReceiver, until, type WebhookReceiver } from '../support/webhook-receiver';

const RECEIVER = 'owner-hooks.test';
/** Every send_email waits for its owner's review for an hour; undecided, its task stops. */
const EMAIL_REVIEW = {
  name: 'email-is-reviewed',
  tools: ['send_email'],
  effect: 'ask-reviewer',
  reviewer: { timeoutMinutes: 60, fallback: 'reject' },
};
/** Words that would make an expiry read as somebody's refusal. */
const REFUSAL = /reject|refus|denied|declin|turned down|said no/i;
/** The acceptance is 5 s from the hold; the margin is for a loaded machine. Only a test that would hang ends at it. */
const WITHIN_MS = 5_000 + 10_000;

interface Draft {
  id: string;
  status: string;
  recipient: string;
  subject: string | null;
  text: string | null;
}

/**
 * A draft held for review reaches its owner by both ways at once, mail and a signed webhook,
 * in the draft's own words; when nobody decides it in time, every place that tells of it (the
 * mail, the webhook, the console's API, the audit row) says it expired, none that it was refused.
 */
describe('approvals that reach people', () => {
  let smtp: SmtpTestServer;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
    receiver = await startWebhookReceiver([RECEIVER]);
  });
  const clock = new ShiftedClock();
  const sut = useTestApp({
    env: () => ({
      SMTP_URL: smtp.url,
      SMTP_FROM: 'Bridle <outreach@bridle.test>',
      NOTIFY_EMAIL_FROM: 'Bridle <notify@bridle.test>',
      OUTBOUND_PRIVATE_HOSTS: RECEIVER,
      WEBHOOK_POLL_MS: '200',
    }),
    clock,
    outboundNetwork: () =>
      new OutboundNetwork(
        (name) => (name === RECEIVER ? Promise.resolve(['127.0.0.1']) : Promise.reject(new Error(name))),
        receiver.fixture.ca,
      ),
    beforeClose: () => receiver?.close(),
  });
  afterAll(() => smtp?.stop());
  const admin = sut.user({ admin: true });
  const owner = sut.user();

  async function mailsTo(email: string, count: number): Promise<ReceivedMail[]> {
    await until(`${count} mail(s) for ${email}`, () => smtp.notifications(email).length >= count, WITHIN_MS);
    return smtp.notifications(email);
  }

  it('tells the owner of a held draft by mail and webhook, then of its expiry as an expiry everywhere', async () => {
    await request(sut.http)
      .put('/admin/policy')
      .set(admin.auth)
      .send({ rules: [EMAIL_REVIEW], reason: 'Every email is read before it goes' })
      .expect(200);
    const created = await request(sut.http)
      .post(`/api/${owner.userId}/webhooks`)
      .set(owner.auth)
      .send({ url: receiver.url(RECEIVER), description: 'My approvals' })
      .expect(201);
    const secret = (created.body as { secret: string }).secret;

    const campaignId = await startedCampaign(sut.http, owner, 'Approvals', [
      { name: 'Grace Hopper', linkedinUrl: 'https://www.linkedin.com/in/reach-grace/', email: 'grace@lead.test' },
    ]);
    await cyclesUntilIdle(sut.http, owner, campaignId);
    const drafts = await request(sut.http)
      .get(`/api/${owner.userId}/outreach/drafts?status=awaiting_review&limit=100`)
      .set(owner.auth)
      .expect(200);
    const [draft] = (drafts.body as { items: Draft[] }).items;
    expect(draft).toBeDefined();

    // Both ways, at once: the mail in the draft's own words, the webhook signed and naming the draft.
    const [held] = await mailsTo(owner.email, 1);
    expect(held.text.split('\r\n')).toEqual(
      expect.arrayContaining([
        `To: ${draft.recipient}`,
        `Subject: ${draft.subject}`,
        `Review it in the console: ${sut.http}/#review?draft=${draft.id}`,
      ]),
    );
    await until('the webhook of the held draft', () => receiver.accepted(RECEIVER).length >= 1, WITHIN_MS);
    receiver.verifyAll(RECEIVER, secret);
    const [first] = receiver.accepted(RECEIVER);
    expect(
      new Webhook(secret).verify(first.body, {
        'webhook-id': first.id,
        'webhook-timestamp': first.timestamp,
        'webhook-signature': first.signature,
      }),
    ).toMatchObject({
      type: 'draft.awaiting_review',
      data: { subject: { kind: 'draft', id: draft.id }, link: `${sut.http}/#review?draft=${draft.id}` },
    });

    // Nobody decides it within the rule's hour.
    await mailsRecorded(sut.app, owner.userId);
    clock.advance(61 * 60_000);
    await sut.app.get(SweepStaleActionsUseCase).run();

    const one = await request(sut.http).get(`/api/${owner.userId}/outreach/drafts/${draft.id}`).set(owner.auth).expect(200);
    expect(one.body).toMatchObject({ id: draft.id, status: 'expired' });

    const [, expired] = await mailsTo(owner.email, 2);
    expect(expired.headers.get('subject')).toMatch(/^A draft expired/);
    for (const words of [expired.headers.get('subject'), expired.text, expired.html]) expect(words).not.toMatch(REFUSAL);

    await until('the webhook of the expiry', () => receiver.accepted(RECEIVER).length >= 2, WITHIN_MS);
    const second = receiver.accepted(RECEIVER)[1];
    // Signed at the service's clock, which this test moved an hour on: the package's verify would
    // refuse the timestamp as too new, so the signature is checked as it computes it.
    const signedAt = new Date(Number(second.timestamp) * 1000);
    expect(second.signature).toBe(new Webhook(secret).sign(second.id, signedAt, second.body));
    expect(second.type).toBe('draft.expired');
    expect(second.body).not.toMatch(REFUSAL);

    const audit = await request(sut.http).get(`/admin/audit-logs?tool=expire_draft&campaignId=${campaignId}`).set(admin.auth).expect(200);
    const [row] = (audit.body as { items: { status: string; result: unknown }[] }).items;
    expect(row).toMatchObject({ status: 'succeeded', result: expect.objectContaining({ decision: 'expired' }) });
    expect(JSON.stringify(row.result)).not.toMatch(REFUSAL);
  });
});
