import request from 'supertest';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { chatCompletion, FakeProviderServer } from '../support/fake-provider-server';
import { type CycleBody, type LeadInput, runCycle, startedCampaign } from '../support/outreach';
import { useTestApp } from '../support/test-app';

const BRIEF = {
  offer: 'A free 30-minute review of your CI pipeline',
  tone: 'friendly',
  callToAction: 'Reply with a time that suits you next week',
  senderName: 'Sam Rivera',
  signature: 'Sam Rivera\nAcme Tools',
};
const NO_BRIEF = { offer: null, tone: null, callToAction: null, senderName: null, signature: null };
const NO_TEMPLATES = { linkedinMessage: null, emailSubject: null, emailBody: null };
const ADA: LeadInput = { name: 'Ada Lovelace', linkedinUrl: 'https://www.linkedin.com/in/ada-lovelace/', email: 'ada@example.com' };

interface SentTask {
  type: string;
  status: string;
  sent: { channel: string; recipient: string; subject: string | null; text: string } | null;
}

/** Creates a campaign with `body`, imports the leads and starts it. @returns its id. */
function briefedCampaign(http: string, user: SignedInUser, body: { name: string } & Record<string, unknown>, leads: readonly LeadInput[]) {
  return startedCampaign(http, user, body, leads);
}

/** Runs cycles until every task of the campaign is finished. */
async function runToEnd(http: string, user: SignedInUser, campaignId: string): Promise<CycleBody[]> {
  const outcomes: CycleBody[] = [];
  for (let i = 0; i < 20; i++) {
    const outcome = await runCycle(http, user, campaignId);
    outcomes.push(outcome);
    if (outcome.status === 'campaign_completed' || outcome.status === 'idle') return outcomes;
  }
  throw new Error(`the campaign did not finish: ${JSON.stringify(outcomes.at(-1))}`);
}

async function sentOf(http: string, user: SignedInUser, campaignId: string): Promise<SentTask[]> {
  const res = await request(http).get(`/api/${user.userId}/campaigns/${campaignId}/tasks?limit=100`).set(user.auth).expect(200);
  return (res.body as { items: SentTask[] }).items;
}

describe('a campaign brief, on the offline planner', () => {
  const sut = useTestApp();
  const user = sut.user();

  it('is set on create, returned, changed field by field, and cleared with null', async () => {
    const base = `/api/${user.userId}/campaigns`;
    const created = await request(sut.http)
      .post(base)
      .set(user.auth)
      .send({ name: 'Briefed', brief: { ...BRIEF, offer: `  ${BRIEF.offer}  ` }, templates: { emailSubject: 'For {{company}}' } })
      .expect(201);
    const campaign = created.body as { id: string; brief: unknown; templates: unknown };
    expect(campaign.brief).toEqual(BRIEF);
    expect(campaign.templates).toEqual({ ...NO_TEMPLATES, emailSubject: 'For {{company}}' });

    const changed = await request(sut.http)
      .patch(`${base}/${campaign.id}`)
      .set(user.auth)
      .send({ brief: { tone: 'formal', signature: null }, templates: { emailBody: 'Dear {{name}},\n\n{{signature}}' } })
      .expect(200);
    expect(changed.body).toMatchObject({
      brief: { ...BRIEF, tone: 'formal', signature: null },
      templates: { ...NO_TEMPLATES, emailSubject: 'For {{company}}', emailBody: 'Dear {{name}},\n\n{{signature}}' },
    });
    const read = await request(sut.http).get(`${base}/${campaign.id}`).set(user.auth).expect(200);
    expect(read.body).toMatchObject({ brief: changed.body.brief, templates: changed.body.templates });
    const listed = await request(sut.http).get(base).set(user.auth).expect(200);
    expect((listed.body as { items: { id: string; brief: unknown }[] }).items.find((item) => item.id === campaign.id)?.brief).toEqual(
      changed.body.brief,
    );

    // A campaign without one has every field null.
    const plain = await request(sut.http).post(base).set(user.auth).send({ name: 'Plain' }).expect(201);
    expect(plain.body).toMatchObject({ brief: NO_BRIEF, templates: NO_TEMPLATES });
  });

  it.each([
    ['templates.emailBody', { templates: { emailBody: 'Hi {{nickname}}' } }, /unknown placeholder \{\{nickname\}\}/],
    ['templates.linkedinMessage', { templates: { linkedinMessage: 'Hi {{firstName' } }, /not part of a placeholder/],
    ['templates.emailSubject', { templates: { emailSubject: 'Two\nlines' } }, /one line/],
    ['brief.tone', { brief: { tone: 't'.repeat(101) } }, /at most 100/],
    ['brief.offer', { brief: { offer: 42 } }, /text/],
    ['brief.greeting', { brief: { greeting: 'Yo' } }, /unknown field|accepts only/],
    ['brief', { brief: 'friendly' }, /object/],
  ])('refuses a bad %s with a 400 that names it, on create and on PATCH', async (field, body, message) => {
    const base = `/api/${user.userId}/campaigns`;
    const refused = await request(sut.http)
      .post(base)
      .set(user.auth)
      .send({ name: 'Refused', ...body })
      .expect(400);
    expect((refused.body as { message: string }).message).toContain(field);
    expect((refused.body as { message: string }).message).toMatch(message);

    const created = await request(sut.http).post(base).set(user.auth).send({ name: 'Kept' }).expect(201);
    const patched = await request(sut.http).patch(`${base}/${created.body.id}`).set(user.auth).send(body).expect(400);
    expect((patched.body as { message: string }).message).toContain(field);
    const read = await request(sut.http).get(`${base}/${created.body.id}`).set(user.auth).expect(200);
    expect(read.body).toMatchObject({ brief: NO_BRIEF, templates: NO_TEMPLATES });
  });

  it('writes different messages for the same lead in two campaigns with different briefs', async () => {
    const audit = await briefedCampaign(sut.http, user, { name: 'CI audits', brief: BRIEF }, [ADA]);
    const hiring = await briefedCampaign(
      sut.http,
      user,
      {
        name: 'Hiring playbook',
        brief: { offer: 'Our hiring playbook', tone: 'formal', callToAction: 'Shall I send you a copy?', senderName: 'Lee Chen' },
        templates: { emailSubject: 'A playbook for {{company}}', emailBody: 'Dear {{name}},\n\nMay I send it?\n\n{{signature}}' },
      },
      [ADA],
    );
    await runToEnd(sut.http, user, audit);
    await runToEnd(sut.http, user, hiring);

    const [auditTasks, hiringTasks] = [await sentOf(sut.http, user, audit), await sentOf(sut.http, user, hiring)];
    const text = (tasks: SentTask[], type: string) => tasks.find((task) => task.type === type)?.sent;
    for (const type of ['SendLinkedInMessage', 'SendEmail']) {
      expect(text(auditTasks, type)).toEqual(expect.objectContaining({ text: expect.any(String) }));
      expect(text(auditTasks, type)!.text).not.toBe(text(hiringTasks, type)!.text);
    }
    expect(text(auditTasks, 'SendLinkedInMessage')!.text).toMatch(
      /^Hey Ada, [\s\S]*offer you a free 30-minute review of your CI pipeline\. Reply with a time that suits you next week\. Cheers,\nSam Rivera\nAcme Tools$/,
    );
    expect(text(hiringTasks, 'SendLinkedInMessage')!.text).toMatch(
      /^Dear Ada, [\s\S]*our hiring playbook\. Shall I send you a copy\? Kind regards,\nLee Chen$/,
    );
    // The templates, filled from the lead and its profile look-up (the sandbox's company for this URL).
    const email = text(hiringTasks, 'SendEmail')!;
    expect(email.subject).toMatch(/^A playbook for (?!your company)\S/);
    expect(email.text).toMatch(/^Dear Ada Lovelace,\n\nMay I send it\?\n\nLee Chen/);
  });
});

describe('a campaign brief, on LLM_PROVIDER=openai (a local server speaking its wire format)', () => {
  let fake: FakeProviderServer;
  beforeAll(async () => {
    fake = await FakeProviderServer.start();
  });
  const sut = useTestApp({ env: () => ({ ...fake.openAiEnv, LLM_TIMEOUT_MS: '2000' }) });
  afterAll(() => fake?.stop());

  it('sends the brief and the templates in the planner prompt', async () => {
    fake.respond(() => ({
      json: chatCompletion({
        content: JSON.stringify({
          action: 'linkedin_scrape_profile',
          args: { profileUrl: ADA.linkedinUrl, fields: ['name', 'title', 'company'] },
          reason: 'Look up the lead before writing to her.',
        }),
      }),
    }));
    const user = await signUpAndIn(sut.http);
    const campaignId = await briefedCampaign(
      sut.http,
      user,
      { name: 'CI audits', brief: BRIEF, templates: { linkedinMessage: 'Hi {{firstName}}, {{senderName}} here.' } },
      [ADA],
    );

    const outcome = await runCycle(sut.http, user, campaignId);

    expect(outcome).toMatchObject({ status: 'completed', proposal: { action: 'linkedin_scrape_profile', by: 'model' } });
    expect(fake.requests).toHaveLength(1);
    const body = fake.requests[0].body as { messages: { role: string; content: string }[]; response_format: unknown };
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(body.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('CAMPAIGN BRIEF') });
    const prompt = body.messages.find((message) => message.role === 'user')!.content;
    expect(prompt).toContain('CAMPAIGN BRIEF');
    expect(prompt).toContain('- Offer: "A free 30-minute review of your CI pipeline"');
    expect(prompt).toContain('- Tone: "friendly"');
    expect(prompt).toContain('- Call to action: "Reply with a time that suits you next week"');
    expect(prompt).toContain('- Sender name: "Sam Rivera"');
    expect(prompt).toContain('- Signature: "Sam Rivera\\nAcme Tools"');
    expect(prompt).toContain('- LinkedIn message template: "Hi {{firstName}}, {{senderName}} here."');
    expect(prompt).toContain('- Email subject template: none');
  });
});
