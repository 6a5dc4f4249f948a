import request from 'supertest';
import { DataSource } from 'typeorm';
import { FakeSmsChannel } from '../fakes/outreach/sms-channel';
import { ScriptedLanguageModel, say } from '../fakes/scripted-language-model';
import { leads, runCycle, type CycleBody } from '../support/outreach';
import { useTestApp } from '../support/test-app';

/**
 * A third channel, added in test code alone (one line: the test app's `channels`), brings its
 * own action: cycles plan it, meter it against its kind's limits, and send it through it alone.
 */
describe('a channel added in test code alone', () => {
  const sms = new FakeSmsChannel();
  const model = new ScriptedLanguageModel();
  const sut = useTestApp({ channels: [sms], languageModel: model });
  const ada = sut.user();
  const campaigns = () => `/api/${ada.userId}/campaigns`;

  it('sends send_sms through its channel up to the sms daily limit, defers the next for quota, and the sandbox channels record nothing', async () => {
    // The (faked) model proposes the action the prompt offers: send_sms, to the lead's number.
    let prompts = 0;
    model.use((request) => {
      prompts += 1;
      expect(request.systemPrompt).toContain('- send_sms {to, text}: Send a short text message to the lead');
      const text = JSON.stringify({
        action: 'send_sms',
        args: { to: '+15555550100', text: 'Hello from Bridle' },
        reason: 'The task is a text.',
      });
      return { ...say(''), text };
    });
    const created = await request(sut.http)
      .post(campaigns())
      .set(ada.auth)
      .send({ name: 'Texts', limits: [{ kind: 'sms', window: 'day', max: 2 }] })
      .expect(201);
    const id = (created.body as { id: string }).id;
    await request(sut.http)
      .post(`${campaigns()}/${id}/leads`)
      .set(ada.auth)
      .send({ leads: leads(3, 'sms'), steps: ['SendSms'] })
      .expect(201);
    await request(sut.http).post(`${campaigns()}/${id}/start`).set(ada.auth).expect(200);

    const outcomes: CycleBody[] = [];
    for (let i = 0; i < 3; i++) outcomes.push(await runCycle(sut.http, ada, id));

    expect(outcomes.slice(0, 2).map((each) => [each.status, each.proposal?.action, each.verification?.verified])).toEqual([
      ['completed', 'send_sms', true],
      ['completed', 'send_sms', true],
    ]);
    expect(outcomes[2]).toEqual(expect.objectContaining({ status: 'deferred', code: 'QUOTA_EXCEEDED' }));
    expect(prompts).toBe(2);
    expect([...sms.sent.values()].map((each) => [each.action, each.kind, each.args])).toEqual([
      ['send_sms', 'sms', { to: '+15555550100', text: 'Hello from Bridle' }],
      ['send_sms', 'sms', { to: '+15555550100', text: 'Hello from Bridle' }],
    ]);

    const db = sut.app.get(DataSource);
    const counted = await db.query<{ scope: string; used: number; limit: number }[]>(
      `SELECT scope, used, "limit" FROM quota_ledger WHERE kind = 'sms' AND scope = 'campaign' AND scope_id = $1`,
      [id],
    );
    expect(counted).toEqual([{ scope: 'campaign', used: 2, limit: 2 }]);
    const tasks = await db.query<{ type: string; status: string }[]>(
      `SELECT type, status FROM outreach_tasks WHERE campaign_id = $1 ORDER BY status`,
      [id],
    );
    expect(tasks).toEqual([
      { type: 'SendSms', status: 'Completed' },
      { type: 'SendSms', status: 'Completed' },
      { type: 'SendSms', status: 'Pending' },
    ]);
    expect(await db.query(`SELECT 1 FROM sandbox_email_outbox`)).toHaveLength(0);
    expect(await db.query(`SELECT 1 FROM sandbox_linkedin_actions`)).toHaveLength(0);
  });

  it('refuses a lead import whose steps name a task type no channel does, naming the field', async () => {
    const created = await request(sut.http).post(campaigns()).set(ada.auth).send({ name: 'Faxes' }).expect(201);
    const refused = await request(sut.http)
      .post(`${campaigns()}/${(created.body as { id: string }).id}/leads`)
      .set(ada.auth)
      .send({ leads: leads(1, 'fax'), steps: ['ScrapeProfile', 'SendFax'] })
      .expect(400);
    expect(JSON.stringify(refused.body)).toContain('steps[1] must be one of ScrapeProfile, SendLinkedInMessage, SendEmail, SendSms');
  });
});
