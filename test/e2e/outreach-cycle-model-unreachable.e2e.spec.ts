import { DataSource } from 'typeorm';
import { LanguageModelUnavailableError } from '../../src/domain/agent/language-model-errors';
import { ScriptedLanguageModel } from '../fakes/scripted-language-model';
import { signUpAndIn } from '../support/accounts';
import { leads, runCycle, startedCampaign } from '../support/outreach';
import { useTestApp } from '../support/test-app';

/** The outreach controller over HTTP when the planner's model fails or breaks the proposal contract. */
describe('outreach cycles when the model cannot be reached', () => {
  const model = new ScriptedLanguageModel();
  const sut = useTestApp({ languageModel: model });

  it('leaves the task Pending with a backoff, and records the decision', async () => {
    model.use(() => {
      throw new LanguageModelUnavailableError('down', { requestId: 'req-42' });
    });
    const user = await signUpAndIn(sut.http);
    const campaignId = await startedCampaign(sut.http, user, 'Offline day', leads(1, 'down'));
    const before = Date.now();

    const outcome = await runCycle(sut.http, user, campaignId);

    expect(outcome).toEqual(expect.objectContaining({ status: 'deferred', code: 'MODEL_UNAVAILABLE' }));
    expect(outcome.task).toEqual(expect.objectContaining({ status: 'Pending', attempts: 1 }));
    expect(new Date(outcome.task!.nextRunAt!).getTime()).toBeGreaterThanOrEqual(before + 60_000);
    const sql = sut.app.get(DataSource);
    const [decision] = await sql.query<{ failure_class: string; provider_request_id: string }[]>(
      `SELECT failure_class, provider_request_id FROM decision_logs WHERE campaign_id = $1`,
      [campaignId],
    );
    expect(decision).toEqual({ failure_class: 'PROVIDER_UNAVAILABLE', provider_request_id: 'req-42' });
    // A waiting task is not due: the next cycle has nothing to do.
    expect((await runCycle(sut.http, user, campaignId)).status).toBe('idle');
  });

  it('refuses a proposal that breaks the contract twice: NO_VALID_ACTION, each refusal audited', async () => {
    model.use(() => ({
      text: JSON.stringify({ actions: [{ action: 'send_email' }] }),
      toolCalls: [],
      usage: { promptTokens: 1, completionTokens: 1 },
      finishReason: 'stop',
    }));
    const user = await signUpAndIn(sut.http);
    const campaignId = await startedCampaign(sut.http, user, 'Chatty model', leads(1, 'chatty'));

    const outcome = await runCycle(sut.http, user, campaignId);

    expect(outcome).toEqual(expect.objectContaining({ status: 'deferred', code: 'NO_VALID_ACTION' }));
    const sql = sut.app.get(DataSource);
    const rows = await sql.query<{ status: string; error_code: string; result: { problems: string[] } }[]>(
      `SELECT status, error_code, result FROM audit_log WHERE campaign_id = $1 ORDER BY seq`,
      [campaignId],
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toEqual(expect.objectContaining({ status: 'rejected', error_code: 'INVALID_PROPOSAL' }));
      expect(row.result.problems).toContain('actions: exactly one action is accepted, not a list');
    }
    expect(await sql.query(`SELECT 1 FROM outreach_actions WHERE campaign_id = $1`, [campaignId])).toHaveLength(0);
  });
});
