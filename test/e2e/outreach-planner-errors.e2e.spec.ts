import { DataSource } from 'typeorm';
import { ScriptedLanguageModel, say } from '../fakes/scripted-language-model';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { leads, runCycle, startedCampaign } from '../support/outreach';
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

/** Seed 000's error shape, answered by the model, through the real cycle over HTTP. */
describe("outreach cycles when the model answers in seed 000's error shape", () => {
  let db: TestDatabase;
  let sut: TestApp;
  let sql: DataSource;
  let user: SignedInUser;
  const model = new ScriptedLanguageModel();

  beforeAll(async () => {
    db = await createTestDatabase();
    sut = await startTestApp(db, {}, { languageModel: model });
    sql = sut.app.get(DataSource);
    user = await signUpAndIn(sut.http);
  });

  afterAll(async () => {
    await sut?.close();
    await db?.dispose();
  });

  function answer(value: unknown): void {
    model.use(() => ({ ...say(''), text: JSON.stringify(value) }));
  }

  async function taskRow(taskId: string) {
    const [row] = await sql.query<{ status: string; last_error: string | null; next_run_at: Date; output: unknown }[]>(
      `SELECT status, last_error, next_run_at, output FROM outreach_tasks WHERE id = $1`,
      [taskId],
    );
    return row;
  }

  async function auditRows(campaignId: string) {
    return sql.query<{ tool: string; status: string; error_code: string | null; arguments: unknown; result: unknown }[]>(
      `SELECT tool, status, error_code, arguments, result FROM audit_log WHERE campaign_id = $1 ORDER BY seq`,
      [campaignId],
    );
  }

  async function nothingSent(campaignId: string): Promise<void> {
    expect(await sql.query(`SELECT 1 FROM outreach_actions WHERE campaign_id = $1`, [campaignId])).toHaveLength(0);
  }

  it('QUOTA_EXCEEDED: the task waits the suggested 24 hours, audited, nothing sent', async () => {
    answer({
      error: {
        code: 'QUOTA_EXCEEDED',
        message: 'Daily LinkedIn quota (50) exceeded, cannot propose scraping action',
        suggestedAction: 'wait_cooldown',
        suggestedArgs: { durationHours: 24 },
      },
    });
    const campaignId = await startedCampaign(sut.http, user, 'Quota talk', leads(1, 'quota-talk'));
    const before = Date.now();

    const outcome = await runCycle(sut.http, user, campaignId);

    expect(outcome).toMatchObject({
      status: 'deferred',
      code: 'QUOTA_EXCEEDED',
      proposal: { action: 'wait_cooldown', args: { durationHours: 24 }, by: 'model' },
      task: { type: 'ScrapeProfile', status: 'Pending' },
    });
    const task = await taskRow(outcome.task!.id);
    expect(task).toMatchObject({ status: 'Pending', last_error: 'QUOTA_EXCEEDED' });
    expect(task.next_run_at.getTime()).toBeGreaterThanOrEqual(before + 24 * 3_600_000);
    expect(task.next_run_at.getTime()).toBeLessThan(Date.now() + 24 * 3_600_000 + 1000);
    const rows = await auditRows(campaignId);
    expect(rows.map((row) => [row.tool, row.status, row.error_code])).toEqual([
      ['linkedin_scrape_profile', 'rejected', 'QUOTA_EXCEEDED'],
      ['wait_cooldown', 'succeeded', null],
    ]);
    expect(rows[0].result).toEqual({
      problems: ['Daily LinkedIn quota (50) exceeded, cannot propose scraping action'],
      reportedBy: 'model',
      durationHours: 24,
    });
    await nothingSent(campaignId);
    // The task is not due: the next cycle has nothing to do.
    expect((await runCycle(sut.http, user, campaignId)).status).toBe('idle');
  });

  it('INVALID_CONTEXT: the task fails, audited, nothing sent', async () => {
    answer({ error: { code: 'INVALID_CONTEXT', message: 'The lead has no LinkedIn URL I can use.' } });
    const campaignId = await startedCampaign(sut.http, user, 'Context talk', leads(1, 'context-talk'));

    const outcome = await runCycle(sut.http, user, campaignId);

    expect(outcome).toMatchObject({ status: 'failed', code: 'INVALID_CONTEXT', task: { status: 'Failed' } });
    expect(await taskRow(outcome.task!.id)).toMatchObject({
      status: 'Failed',
      last_error: 'INVALID_CONTEXT',
      output: { problems: ['The lead has no LinkedIn URL I can use.'] },
    });
    const rows = await auditRows(campaignId);
    expect(rows.map((row) => [row.tool, row.status, row.error_code])).toEqual([['linkedin_scrape_profile', 'rejected', 'INVALID_CONTEXT']]);
    expect(rows[0].arguments).toEqual({
      error: { code: 'INVALID_CONTEXT', message: 'The lead has no LinkedIn URL I can use.', suggestedAction: null, suggestedArgs: null },
    });
    await nothingSent(campaignId);
  });

  it('NO_VALID_ACTION: the task waits with a backoff, audited, nothing sent', async () => {
    answer({ error: { code: 'NO_VALID_ACTION', message: 'All leads processed.', suggestedAction: 'complete_campaign' } });
    const campaignId = await startedCampaign(sut.http, user, 'Nothing to do', leads(1, 'nothing-talk'));
    const before = Date.now();

    const outcome = await runCycle(sut.http, user, campaignId);

    expect(outcome).toMatchObject({
      status: 'deferred',
      code: 'NO_VALID_ACTION',
      validation: { accepted: false, attempts: 1, problems: ['the model reported NO_VALID_ACTION: All leads processed.'] },
    });
    const task = await taskRow(outcome.task!.id);
    expect(task).toMatchObject({ status: 'Pending', last_error: 'NO_VALID_ACTION' });
    expect(task.next_run_at.getTime()).toBeGreaterThanOrEqual(before + 60_000);
    const rows = await auditRows(campaignId);
    expect(rows.map((row) => [row.tool, row.status, row.error_code])).toEqual([['linkedin_scrape_profile', 'rejected', 'NO_VALID_ACTION']]);
    const [decision] = await sql.query<{ status: string; failure_class: string }[]>(
      `SELECT status, failure_class FROM decision_logs WHERE campaign_id = $1`,
      [campaignId],
    );
    expect(decision).toEqual({ status: 'deferred', failure_class: 'NO_VALID_ACTION' });
    await nothingSent(campaignId);
  });

  it('refuses an error answer of an unknown code as an invalid proposal, audited with its reasons', async () => {
    answer({ error: { code: 'SESSION_EXPIRED', message: 'The session expired.' } });
    const campaignId = await startedCampaign(sut.http, user, 'Unknown code', leads(1, 'unknown-code'));

    const outcome = await runCycle(sut.http, user, campaignId);

    expect(outcome).toMatchObject({ status: 'deferred', code: 'NO_VALID_ACTION', validation: { accepted: false, attempts: 2 } });
    const rows = await auditRows(campaignId);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({ status: 'rejected', error_code: 'INVALID_PROPOSAL' });
      expect(row.result).toEqual({ problems: ['error.code must be one of QUOTA_EXCEEDED, INVALID_CONTEXT, NO_VALID_ACTION'] });
    }
  });
});
