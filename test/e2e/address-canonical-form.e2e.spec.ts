import request from 'supertest';
import { cyclesUntilIdle, startedCampaign } from '../support/outreach';
import { SmtpTestServer } from '../support/smtp-test-server';
import { useTestApp } from '../support/test-app';

const NO_COMPETITORS = {
  name: 'no-competitors',
  tools: ['send_email'],
  when: { recipientDomain: { in: ['xn--bcher-kva.de', '*.competitor.com'] } },
  effect: 'deny',
  reason: 'We do not email competitors.',
};

const lead = (slug: string, email: string) => ({ name: `Lead ${slug}`, linkedinUrl: `https://www.linkedin.com/in/${slug}/`, email });
/** The audit's three addresses, each an address mail delivers to a denied domain or a listed address, and one that may be sent to. */
const LEADS = [
  lead('audit-idn', 'a@bücher.de'),
  lead('audit-ideographic-dot', 'b@mail.competitor\u3002com'),
  lead('audit-halfwidth-dot', 'c@mail.competitor\uFF61com'),
  lead('audit-listed', 'h@münchen.example'),
  lead('allowed-one', 'Ok.Person@Example.com'),
];

interface AuditItem {
  tool: string;
  arguments: Record<string, unknown>;
  status: string;
  errorCode: string | null;
  policy: { rule: string | null; effect: string } | null;
}

/**
 * The audit's finding end to end, through a real SMTP server: an address is compared in the
 * form mail is delivered to, so a deny on `xn--bcher-kva.de` holds for `a@bücher.de`, one on
 * `*.competitor.com` for dots written as U+3002 and U+FF61, and `h@xn--mnchen-3ya.example` on
 * the do-not-contact list for `h@münchen.example`. Nothing reaches the server for them; the
 * one address allowed goes out in canonical form, its local part as written.
 */
describe('addresses compared as mail delivers them', () => {
  let smtp: SmtpTestServer;
  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
  });
  const sut = useTestApp({ env: () => ({ SMTP_URL: smtp.url, SMTP_FROM: 'Bridle <outreach@bridle.test>' }) });
  afterAll(() => smtp?.stop());
  const admin = sut.user({ admin: true });
  const ada = sut.user();

  it('denies and does not contact the audit’s addresses, and sends only to the allowed one', async () => {
    await request(sut.http)
      .put('/admin/policy')
      .set(admin.auth)
      .send({ rules: [NO_COMPETITORS], reason: 'No competitors' })
      .expect(200);
    const listed = await request(sut.http)
      .post(`/api/${ada.userId}/do-not-contact`)
      .set(ada.auth)
      .send({ value: 'h@xn--mnchen-3ya.example' })
      .expect(201);
    expect(listed.body).toMatchObject({ kind: 'email', value: 'h@xn--mnchen-3ya.example' });

    const campaignId = await startedCampaign(sut.http, ada, 'Canonical addresses', LEADS);

    const outcomes = await cyclesUntilIdle(sut.http, ada, campaignId);

    expect(smtp.outreach.map((mail) => mail.envelope.to)).toEqual([['Ok.Person@example.com']]);
    const refused = outcomes.filter((outcome) => outcome.code === 'POLICY_DENIED');
    expect(refused.map((outcome) => outcome.proposal?.args.to).sort()).toEqual([
      'a@xn--bcher-kva.de',
      'b@mail.competitor.com',
      'c@mail.competitor.com',
    ]);
    const notContacted = outcomes.filter((outcome) => outcome.code === 'DO_NOT_CONTACT');
    expect(notContacted.length).toBeGreaterThan(0);
    expect(outcomes.filter((outcome) => outcome.proposal?.args.to === 'h@xn--mnchen-3ya.example')).toEqual([]);

    const audit = await request(sut.http)
      .get(`/admin/audit-logs?${new URLSearchParams({ tool: 'send_email', campaignId, limit: '100' }).toString()}`)
      .set(admin.auth)
      .expect(200);
    const rows = (audit.body as { items: AuditItem[] }).items;
    expect(rows.filter((row) => row.status === 'rejected').map((row) => [row.arguments.to, row.errorCode, row.policy?.rule])).toEqual(
      expect.arrayContaining([
        ['a@xn--bcher-kva.de', 'POLICY_DENIED', 'no-competitors'],
        ['b@mail.competitor.com', 'POLICY_DENIED', 'no-competitors'],
        ['c@mail.competitor.com', 'POLICY_DENIED', 'no-competitors'],
      ]),
    );
  });

  it('refuses, with a 400 naming the field, an address or a domain that IDNA cannot read', async () => {
    const campaign = await request(sut.http).post(`/api/${ada.userId}/campaigns`).set(ada.auth).send({ name: 'Bad addresses' }).expect(201);
    const lead = await request(sut.http)
      .post(`/api/${ada.userId}/campaigns/${(campaign.body as { id: string }).id}/leads`)
      .set(ada.auth)
      .send({ leads: [{ name: 'A', linkedinUrl: 'https://www.linkedin.com/in/bad-idna/', email: 'a@xn--zz.com' }] })
      .expect(400);
    expect(lead.body).toMatchObject({ code: 'OUTREACH.INVALID_LEAD', message: expect.stringMatching(/leads\[0\]: email must be/) });

    const entry = await request(sut.http)
      .post(`/api/${ada.userId}/do-not-contact`)
      .set(ada.auth)
      .send({ value: 'h@bü\u00ADcher.de' })
      .expect(400);
    expect(entry.body).toMatchObject({ code: 'OUTREACH.INVALID_DO_NOT_CONTACT', message: expect.stringMatching(/^value must be/) });

    const policy = await request(sut.http)
      .put('/admin/policy')
      .set(admin.auth)
      .send({ rules: [{ ...NO_COMPETITORS, when: { recipientDomain: { in: ['xn--zz.com'] } } }], reason: 'Bad domain' })
      .expect(400);
    expect(JSON.stringify(policy.body)).toContain('rules[1].when.recipientDomain.in[0]');
  });
});
