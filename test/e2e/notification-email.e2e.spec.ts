import request from 'supertest';
import { SweepStaleActionsUseCase } from '../../src/application/outreach/sweep-stale-actions.use-case';
import { ShiftedClock } from '../fakes/fixed-clock';
import { type SignedInUser, signUpAndIn } from '../support/accounts';
import { mailsRecorded } from '../support/notifications';
import { cyclesUntilIdle, startedCampaign } from '../support/outreach';
import { type ReceivedMail, SmtpTestServer } from '../support/smtp-test-server';
import { useTestApp } from '../support/test-app';

/** Every send_email waits for its owner's review for an hour; undecided, its task stops. */
const EMAIL_REVIEW = {
  name: 'email-is-reviewed',
  tools: ['send_email'],
  effect: 'ask-reviewer',
  reviewer: { timeoutMinutes: 60, fallback: 'reject' },
};
const INTERVAL_MS = 15 * 60_000;
/** The acceptance is 5 s from the hold to the mailbox; the margin is for a loaded machine. Only a test that would hang ends at it. */
const MAIL_WAIT_MS = 5_000 + 10_000;
const EXPIRED_ONLY = /reject|refus|denied|declin|turned down/i;

interface Draft {
  id: string;
  status: string;
  campaign: { id: string; name: string };
  lead: { name: string };
  action: string;
  recipient: string;
  subject: string | null;
  text: string | null;
  argumentsHash: string;
}

/**
 * Notifications by email, end to end: the real app, a real SMTP server, outreach on the
 * offline planner and the sandbox LinkedIn. The clock is moved on for the quiet period and
 * the review's hour, never waited for.
 */
describe('notifications by email', () => {
  let smtp: SmtpTestServer;
  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
  });
  const clock = new ShiftedClock();
  const sut = useTestApp({
    env: () => ({ SMTP_URL: smtp.url, SMTP_FROM: 'Bridle <outreach@bridle.test>', NOTIFY_EMAIL_FROM: 'Bridle <notify@bridle.test>' }),
    clock,
  });
  afterAll(() => smtp?.stop());
  const admin = sut.user({ admin: true });
  const owner = sut.user();

  beforeAll(async () => {
    await request(sut.http)
      .put('/admin/policy')
      .set(admin.auth)
      .send({ rules: [EMAIL_REVIEW], reason: 'Every email is read before it goes' })
      .expect(200);
  });

  /** The person's notification mail once there are `count` (polled; the deadline only ends a test that would hang). */
  async function mailsTo(user: SignedInUser, count: number): Promise<ReceivedMail[]> {
    const deadline = Date.now() + MAIL_WAIT_MS;
    while (smtp.notifications(user.email).length < count && Date.now() < deadline) await pause(50);
    return smtp.notifications(user.email);
  }

  /** Long enough for several polls (NOTIFY_POLL_MS is 1 s): a mail that was going to go would have. */
  const severalPolls = () => pause(3_000);

  async function heldEmails(user: SignedInUser, campaign: string, leads: { name: string; slug: string }[]): Promise<Draft[]> {
    const campaignId = await startedCampaign(
      sut.http,
      user,
      campaign,
      leads.map(({ name, slug }) => ({ name, linkedinUrl: `https://www.linkedin.com/in/${slug}/`, email: `${slug}@lead.test` })),
    );
    await cyclesUntilIdle(sut.http, user, campaignId);
    const res = await request(sut.http)
      .get(`/api/${user.userId}/outreach/drafts?status=awaiting_review&limit=100`)
      .set(user.auth)
      .expect(200);
    const drafts = (res.body as { items: Draft[] }).items.filter((draft) => draft.campaign.id === campaignId);
    expect(drafts.map((draft) => draft.action)).toEqual(leads.map(() => 'send_email'));
    return drafts;
  }

  async function draftNow(user: SignedInUser, draftId: string): Promise<Draft> {
    const res = await request(sut.http).get(`/api/${user.userId}/outreach/drafts?limit=100`).set(user.auth).expect(200);
    return (res.body as { items: Draft[] }).items.find((draft) => draft.id === draftId)!;
  }

  /** The lines of the text part that quote the draft's body. */
  const quoted = (body: string) => body.split('\n').map((line) => `> ${line}`);

  it('mails a held draft to its owner at once, in the words the draft holds, and no link in it decides anything', async () => {
    const [draft] = await heldEmails(owner, 'Spring founders', [{ name: 'Ada Lovelace', slug: 'notify-ada' }]);
    const [mail] = await mailsTo(owner, 1);
    expect(mail).toBeDefined();
    expect(mail.envelope).toEqual({ from: 'notify@bridle.test', to: [owner.email] });
    expect(mail.headers.get('subject')).toBe('A draft waits for your review: an email to Ada Lovelace');
    expect(mail.headers.get('auto-submitted')).toBe('auto-generated');
    expect(mail.headers.get('list-unsubscribe')).toBeUndefined();
    const lines = mail.text.split('\r\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'Campaign: Spring founders.',
        `To: ${draft.recipient}`,
        `Subject: ${draft.subject}`,
        ...quoted(draft.text!),
        `Review it in the console: ${sut.http}/#review?draft=${draft.id}`,
      ]),
    );

    // Every link of both parts, fetched as a mail scanner fetches them.
    const links = new Set([
      ...(mail.text.match(/https?:\/\/\S+/g) ?? []),
      ...[...(mail.html ?? '').matchAll(/href="([^"]+)"/g)].map((match) => match[1].replaceAll('&#38;', '&')),
    ]);
    expect([...links].every((link) => link.startsWith(`${sut.http}/#`))).toBe(true);
    expect(links.size).toBe(2);
    for (const link of links) {
      for (const method of ['GET', 'HEAD']) await fetch(link, { method, redirect: 'follow' });
    }
    expect(await draftNow(owner, draft.id)).toEqual(
      expect.objectContaining({ status: 'awaiting_review', argumentsHash: draft.argumentsHash }),
    );
    for (const tool of ['approve_draft', 'reject_draft', 'expire_draft']) {
      const res = await request(sut.http)
        .get(`/admin/audit-logs?tool=${tool}&campaignId=${draft.campaign.id}&limit=10`)
        .set(admin.auth)
        .expect(200);
      expect((res.body as { items: unknown[] }).items).toEqual([]);
    }
  });

  it('mails what follows within the interval as one digest, as the drafts stand when it goes: an edit shows', async () => {
    const held = await heldEmails(owner, 'Summer founders', [
      { name: 'Alan Turing', slug: 'notify-alan' },
      { name: 'Grace Hopper', slug: 'notify-grace' },
    ]);
    const [alan, grace] = ['Alan Turing', 'Grace Hopper'].map((name) => held.find((draft) => draft.lead.name === name)!);
    await severalPolls();
    expect(await mailsTo(owner, 1)).toHaveLength(1);
    await mailsRecorded(sut.app, owner.userId);

    const edits = { subject: 'A shorter question', body: 'Hello Grace,\nhave you got a minute?' };
    await request(sut.http)
      .post(`/api/${owner.userId}/outreach/drafts/${grace.id}/approve`)
      .set(owner.auth)
      .send({ argumentsHash: grace.argumentsHash, edits })
      .expect(200);
    clock.advance(INTERVAL_MS);
    const mails = await mailsTo(owner, 2);
    expect(mails).toHaveLength(2);
    const digest = mails[1];
    expect(digest.headers.get('subject')).toBe('Bridle: 2 notifications');
    // Items in the order they happened, each line of an item under its number indented by three spaces.
    const text = digest.text.split('\r\n').map((line) => line.replace(/^ {3}/, ''));
    expect(
      text
        .filter((line) => /^\d\. /.test(line))
        .map((line) => line.slice(3))
        .sort(),
    ).toEqual(['A draft waits for your review: an email to Alan Turing', 'A draft waits for your review: an email to Grace Hopper']);
    expect(text).toEqual(
      expect.arrayContaining([
        'It has been approved since.',
        `Subject: ${edits.subject}`,
        ...quoted(edits.body),
        `Subject: ${alan.subject}`,
        ...quoted(alan.text!),
      ]),
    );
    expect(text).not.toContain(`Subject: ${grace.subject}`);
  });

  it('mails an expired draft as expired, never as refused', async () => {
    const person = await signUpAndIn(sut.http);
    const [draft] = await heldEmails(person, 'Autumn founders', [{ name: 'Katherine Johnson', slug: 'notify-katherine' }]);
    expect(await mailsTo(person, 1)).toHaveLength(1);
    await mailsRecorded(sut.app, person.userId);

    clock.advance(61 * 60_000);
    await sut.app.get(SweepStaleActionsUseCase).run();
    expect(await draftNow(person, draft.id)).toEqual(expect.objectContaining({ status: 'expired' }));
    const [, expired] = await mailsTo(person, 2);
    expect(expired.headers.get('subject')).toBe('A draft expired: an email to Katherine Johnson');
    expect(expired.text).toContain('Nobody decided it in time, and nothing was sent.');
    for (const words of [expired.headers.get('subject'), expired.text, expired.html]) expect(words).not.toMatch(EXPIRED_ONLY);
  });

  it('mails nothing of an event the person turned off, and the rest still', async () => {
    const person = await signUpAndIn(sut.http);
    await request(sut.http)
      .put(`/api/${person.userId}/notifications/preferences`)
      .set(person.auth)
      .send({ email: { 'draft.awaiting_review': false } })
      .expect(200);
    await heldEmails(person, 'Winter founders', [{ name: 'Hedy Lamarr', slug: 'notify-hedy' }]);
    await severalPolls();
    expect(smtp.notifications(person.email)).toEqual([]);

    // Its expiry is still on: that, alone, is what reaches the person.
    clock.advance(61 * 60_000);
    await sut.app.get(SweepStaleActionsUseCase).run();
    const mails = await mailsTo(person, 1);
    expect(mails.map((mail) => mail.headers.get('subject'))).toEqual(['A draft expired: an email to Hedy Lamarr']);
  });
});

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
