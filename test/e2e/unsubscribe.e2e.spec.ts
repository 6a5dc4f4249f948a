import request from 'supertest';
import { DataSource } from 'typeorm';
import { unsubscribePayload } from '../../src/domain/outreach/unsubscribe';
import { HmacLinkSigner } from '../../src/infrastructure/security/hmac-link-signer';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { runCycle, startedCampaign } from '../support/outreach';
import { SmtpTestServer } from '../support/smtp-test-server';
import { startTestApp, TEST_JWT_SECRET, useTestApp } from '../support/test-app';
import { createTestDatabase } from '../support/test-database';

const PUBLIC_BASE_URL = 'https://bridle.example.test';
const LEAD = { name: 'Jane Doe', linkedinUrl: 'https://www.linkedin.com/in/jane-unsubscribes/', email: 'Jane.Doe@Example.com' };
const ADDRESS = 'jane.doe@example.com';
const FOOTER_LINK = /\n-- \nTo get no more emails from this sender, unsubscribe here:\n(https:\/\/\S+)\n?$/;

/**
 * The unsubscribe link end to end: an email sent through a real SMTP server carries it in
 * its footer and its List-Unsubscribe headers; Bridle serves it with no login; using it puts
 * the address on the owner's do-not-contact list, audited, and the next cycle for that
 * address is cancelled; a link Bridle did not make changes nothing.
 */
describe('unsubscribe links', () => {
  let smtp: SmtpTestServer;
  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
  });
  const sut = useTestApp({
    env: () => ({ SMTP_URL: smtp.url, SMTP_FROM: 'Bridle <outreach@bridle.test>', PUBLIC_BASE_URL: `${PUBLIC_BASE_URL}/` }),
  });
  afterAll(() => smtp?.stop());
  let sql: DataSource;

  beforeAll(() => {
    sql = sut.app.get(DataSource);
  });

  async function doNotContact(user: SignedInUser): Promise<string[]> {
    const res = await request(sut.http).get(`/api/${user.userId}/do-not-contact`).set(user.auth).expect(200);
    return (res.body as { value: string }[]).map((entry) => entry.value);
  }

  async function unsubscribeRows(user: SignedInUser) {
    return sql.query<{ source: string; actor_id: string; campaign_id: string; status: string; arguments: unknown; result: unknown }[]>(
      `SELECT source, actor_id, campaign_id, status, arguments, result FROM audit_log WHERE tool = 'unsubscribe' AND actor_id = $1 ORDER BY seq`,
      [user.userId],
    );
  }

  it('sends the link in the footer and the headers; a forged one changes nothing; one POST unsubscribes, and the next cycle is cancelled', async () => {
    const user = await signUpAndIn(sut.http);
    const first = await startedCampaign(sut.http, user, 'First touch', [LEAD]);
    const second = await startedCampaign(sut.http, user, 'Follow-up', [LEAD]);

    // Look-up, LinkedIn message, then the email through the SMTP server.
    const outcomes = [await runCycle(sut.http, user, first), await runCycle(sut.http, user, first), await runCycle(sut.http, user, first)];
    expect(outcomes.map((c) => [c.status, c.proposal?.action])).toEqual([
      ['completed', 'linkedin_scrape_profile'],
      ['completed', 'linkedin_send_message'],
      ['completed', 'send_email'],
    ]);
    expect(smtp.outreach).toHaveLength(1);
    const [mail] = smtp.outreach;
    // Sent to the address as the lead has it, its domain canonical; unsubscribing lists its key, ADDRESS.
    expect(mail.envelope.to).toEqual(['Jane.Doe@example.com']);

    // The footer ends the body; the headers name the same link (RFC 2369, RFC 8058).
    const text = mail.text.replace(/\r\n/g, '\n');
    const link = FOOTER_LINK.exec(text)?.[1];
    expect(link).toMatch(new RegExp(`^${PUBLIC_BASE_URL}/unsubscribe/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43}$`));
    expect(mail.headers.get('list-unsubscribe')).toBe(`<${link}>`);
    expect(mail.headers.get('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    // The owner's task shows the email as it went out, footer included.
    const tasks = await request(sut.http).get(`/api/${user.userId}/campaigns/${first}/tasks`).set(user.auth).expect(200);
    const emailTask = (tasks.body as { items: { type: string; sent: { text: string } | null }[] }).items.find(
      (t) => t.type === 'SendEmail',
    )!;
    expect(emailTask.sent!.text.replace(/\n$/, '')).toBe(text);
    expect(emailTask.sent!.text).toBe(
      `${outcomes[2].proposal!.args.body as string}\n\n-- \nTo get no more emails from this sender, unsubscribe here:\n${link}\n`,
    );

    const path = new URL(link!).pathname;
    const token = path.slice('/unsubscribe/'.length);
    const [payload, mac] = token.split('.');

    // Links Bridle did not make: altered, truncated, reassembled, another key, another purpose.
    const forged = [
      `${payload.slice(0, -1)}${payload.endsWith('A') ? 'B' : 'A'}.${mac}`,
      `${payload}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`,
      token.slice(0, -5),
      payload,
      `${Buffer.from(unsubscribePayload({ ownerId: user.userId, campaignId: first, email: 'boss@victim.example' })).toString('base64url')}.${mac}`,
      HmacLinkSigner.derive('another-secret-of-at-least-thirty-two-chars', 'unsubscribe').sign(
        unsubscribePayload({ ownerId: user.userId, campaignId: first, email: ADDRESS }),
      ),
      HmacLinkSigner.derive(TEST_JWT_SECRET, 'verify-email').sign(
        unsubscribePayload({ ownerId: user.userId, campaignId: first, email: ADDRESS }),
      ),
      user.token,
    ];
    for (const bad of forged) {
      const json = await request(sut.http).post(`/unsubscribe/${bad}`).type('form').send('List-Unsubscribe=One-Click');
      expect({ bad, status: json.status, code: json.body.code }).toEqual({ bad, status: 404, code: 'OUTREACH.UNSUBSCRIBE_LINK_INVALID' });
      expect(json.text).not.toContain(ADDRESS);
      const page = await request(sut.http).get(`/unsubscribe/${bad}`).set('Accept', 'text/html');
      expect({ bad, status: page.status, type: page.type }).toEqual({ bad, status: 404, type: 'text/html' });
      expect(page.text).toContain('This unsubscribe link is not valid');
      expect(page.text).not.toContain(ADDRESS);
    }
    expect(await doNotContact(user)).toEqual([]);
    expect(await unsubscribeRows(user)).toEqual([]);

    // GET only asks: mail scanners open links. The page is plain HTML under the service's CSP.
    const page = await request(sut.http).get(path).set('Accept', 'text/html').expect(200);
    expect(page.type).toBe('text/html');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("style-src 'self'");
    expect(page.headers['content-security-policy']).toContain("form-action 'self'");
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain(ADDRESS);
    expect(page.text).not.toMatch(/<script|<style|\sstyle=|\son[a-z]+=|<link|<img|https?:\/\//i);
    // Its one form posts back to the page's own URL (no action), with the one-click body.
    const form = /<form method="post">\s*<input type="hidden" name="([^"]+)" value="([^"]+)">\s*<button type="submit">/.exec(page.text);
    expect(form?.slice(1)).toEqual(['List-Unsubscribe', 'One-Click']);
    expect(await doNotContact(user)).toEqual([]);

    // The button (or a mail client's one click): on the list at once, audited with the owner as actor.
    const done = await request(sut.http).post(path).type('form').send(`${form![1]}=${form![2]}`).set('Accept', 'text/html').expect(200);
    expect(done.type).toBe('text/html');
    expect(done.text).toContain(`<strong>${ADDRESS}</strong> will get no more emails from this sender`);
    expect(await doNotContact(user)).toEqual([ADDRESS]);
    expect(await unsubscribeRows(user)).toEqual([
      {
        source: 'outreach',
        actor_id: user.userId,
        campaign_id: first,
        status: 'succeeded',
        arguments: { email: ADDRESS, via: 'unsubscribe link' },
        result: { doNotContactEntryId: expect.any(String), added: true },
      },
    ]);

    // Again, as a mail client would (no Accept): harmless.
    await request(sut.http).post(path).type('form').send('List-Unsubscribe=One-Click').expect(200);
    await request(sut.http).post(path).expect(200);
    expect(await doNotContact(user)).toEqual([ADDRESS]);
    expect((await unsubscribeRows(user)).map((row) => row.result)).toEqual([
      { doNotContactEntryId: expect.any(String), added: true },
      { doNotContactEntryId: expect.any(String), added: false },
      { doNotContactEntryId: expect.any(String), added: false },
    ]);

    // The next cycle for that address (the same lead in the owner's other campaign) is cancelled, and so is the rest of its tasks.
    const next = await runCycle(sut.http, user, second);
    expect(next).toMatchObject({ status: 'failed', code: 'DO_NOT_CONTACT', task: { status: 'Cancelled' } });
    const left = await request(sut.http).get(`/api/${user.userId}/campaigns/${second}/tasks`).set(user.auth).expect(200);
    expect((left.body as { items: { status: string; lastError: string | null }[] }).items.map((t) => [t.status, t.lastError])).toEqual([
      ['Cancelled', 'DO_NOT_CONTACT'],
      ['Cancelled', 'DO_NOT_CONTACT'],
      ['Cancelled', 'DO_NOT_CONTACT'],
    ]);
    expect(smtp.outreach).toHaveLength(1);
  });

  it('counts each address on the per-address limit of anonymous routes', async () => {
    // Its own database: the counters live there, and the first test has counted on them.
    const own = await createTestDatabase();
    const limited = await startTestApp(own, { AUTH_RATE_LIMIT_PER_MINUTE: '2' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await request(limited.http).get('/unsubscribe/not-a-link')).status);
      for (let i = 0; i < 3; i++) statuses.push((await request(limited.http).post('/unsubscribe/not-a-link')).status);
      expect(statuses).toEqual([404, 404, 429, 404, 404, 429]);
    } finally {
      await limited.close();
      await own.dispose();
    }
  });
});
