import request from 'supertest';
import { DataSource } from 'typeorm';
import { nextUtcMidnight } from '../../src/domain/outreach/quota';
import { ScriptedLanguageModel, say } from '../fakes/scripted-language-model';
import { leads, runCycle, startedCampaign } from '../support/outreach';
import { useTestApp } from '../support/test-app';

/** The planner's error shape (an error object in place of an action), answered by the model, through the real cycle over HTTP. */
describe('outreach cycles when the model answers in the error shape (an error object in place of an action)', () => {
  const model = new ScriptedLanguageModel();
  const sut = useTestApp({ languageModel: model });
  const user = sut.user();
  let sql: DataSource;
  beforeAll(() => {
    sql = sut.app.get(DataSource);
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
    return sql.query<
      { tool: string; status: string; error_code: string | null; error_message: string | null; arguments: unknown; result: unknown }[]
    >(`SELECT tool, status, error_code, error_message, arguments, result FROM audit_log WHERE campaign_id = $1 ORDER BY seq`, [campaignId]);
  }

  async function nothingSent(campaignId: string): Promise<void> {
    expect(await sql.query(`SELECT 1 FROM outreach_actions WHERE campaign_id = $1`, [campaignId])).toHaveLength(0);
  }

  /** The model's answer, given only once the test releases it; `asked` resolves when the model is called. */
  function answerWhenReleased(value: unknown): { asked: Promise<void>; release: () => void } {
    let release!: () => void;
    let asked!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const called = new Promise<void>((resolve) => (asked = resolve));
    model.use(async () => {
      asked();
      await released;
      return { ...say(''), text: JSON.stringify(value) };
    });
    return { asked: called, release };
  }

  async function decisionRow(id: string) {
    const [row] = await sql.query<{ status: string; decision_type: string; failure_class: string | null }[]>(
      `SELECT status, decision_type, failure_class FROM decision_logs WHERE id = $1`,
      [id],
    );
    return row;
  }

  /** Makes the campaign's pending tasks due now. */
  async function dueNow(campaignId: string): Promise<void> {
    await sql.query(`UPDATE outreach_tasks SET next_run_at = now() - interval '1 minute' WHERE campaign_id = $1 AND status = 'Pending'`, [
      campaignId,
    ]);
  }

  function lookUp(lead: { linkedinUrl: string }) {
    return {
      action: 'linkedin_scrape_profile',
      args: { profileUrl: lead.linkedinUrl, fields: ['name', 'headline'] },
      reason: 'Look the lead up first.',
    };
  }

  const QUOTA_CLAIM = {
    error: {
      code: 'QUOTA_EXCEEDED',
      message: 'Daily LinkedIn quota (50) exceeded, cannot propose scraping action',
      suggestedAction: 'wait_cooldown',
      suggestedArgs: { durationHours: 24 },
    },
  };

  it('QUOTA_EXCEEDED with 0 of 50 used: the claim is refused, audited with why, and the task is due again within the hour', async () => {
    answer(QUOTA_CLAIM);
    const lead = leads(1, 'quota-talk');
    const campaignId = await startedCampaign(sut.http, user, 'Quota talk', lead);

    const outcome = await runCycle(sut.http, user, campaignId);

    const reason =
      "claim refused: QUOTA_EXCEEDED but 0 of 50 used: the campaign's daily profile look-up limit, the tightest of this task's, has 50 left";
    expect(outcome).toMatchObject({
      status: 'deferred',
      code: 'CLAIM_REFUSED',
      proposal: null,
      task: { type: 'ScrapeProfile', status: 'Pending' },
    });
    expect(outcome.message).toContain(reason);
    const task = await taskRow(outcome.task!.id);
    expect(task).toMatchObject({ status: 'Pending', last_error: 'CLAIM_REFUSED' });
    expect(task.next_run_at.getTime()).toBeLessThan(Date.now() + 3_600_000);
    expect(task.next_run_at.getTime()).toBe(new Date(outcome.task!.nextRunAt!).getTime());
    const rows = await auditRows(campaignId);
    expect(rows.map((row) => [row.tool, row.status, row.error_code])).toEqual([['linkedin_scrape_profile', 'rejected', 'CLAIM_REFUSED']]);
    expect(rows[0].arguments).toEqual(QUOTA_CLAIM);
    expect(rows[0].result).toEqual({ problems: [QUOTA_CLAIM.error.message], reportedBy: 'model', claim: 'refused', reason });
    // The refusal says on its row what the cycle said of it: the model's claim, and why it does not hold.
    expect(outcome.message.startsWith(rows[0].error_message!)).toBe(true);
    expect(rows[0].error_message).toContain(reason);
    expect(await decisionRow(outcome.decisionId!)).toEqual({
      status: 'deferred',
      decision_type: 'CLAIM_REFUSED',
      failure_class: 'CLAIM_REFUSED',
    });
    await nothingSent(campaignId);
    // Not due at once; once due, it runs.
    expect((await runCycle(sut.http, user, campaignId)).status).toBe('idle');
    await dueNow(campaignId);
    answer(lookUp(lead[0]));
    expect(await runCycle(sut.http, user, campaignId)).toMatchObject({ status: 'completed', task: { id: outcome.task!.id, attempts: 2 } });
  });

  it('QUOTA_EXCEEDED with the quota used up: the task is parked until the limit frees, as before, without asking the model', async () => {
    answer(QUOTA_CLAIM);
    const campaignId = await startedCampaign(sut.http, user, 'Quota gone', leads(1, 'quota-gone'), { profile_lookup: 0 });
    const before = new Date();

    const outcome = await runCycle(sut.http, user, campaignId);

    expect(model.requests).toHaveLength(0);
    expect(outcome).toMatchObject({
      status: 'deferred',
      code: 'QUOTA_EXCEEDED',
      proposal: { action: 'wait_cooldown', by: 'controller' },
      task: { status: 'Pending' },
    });
    const task = await taskRow(outcome.task!.id);
    expect(task).toMatchObject({ status: 'Pending', last_error: 'QUOTA_EXCEEDED' });
    expect([nextUtcMidnight(before).getTime(), nextUtcMidnight(new Date()).getTime()]).toContain(task.next_run_at.getTime());
    const rows = await auditRows(campaignId);
    expect(rows.map((row) => [row.tool, row.status, row.error_code])).toEqual([['linkedin_scrape_profile', 'rejected', 'QUOTA_EXCEEDED']]);
    // The quota's refusal says which limit, on its row as in the cycle's outcome.
    expect(rows[0].error_message).toMatch(
      /^Quota exhausted: the campaign's daily profile look-up limit \(0 a day\) is reached; the next slot/,
    );
    expect(outcome.message.startsWith(rows[0].error_message!)).toBe(true);
    await nothingSent(campaignId);
  });

  it('QUOTA_EXCEEDED while the limit is lowered to 0 meanwhile: refused on what the model was shown; the next cycle parks the task itself', async () => {
    const answered = answerWhenReleased(QUOTA_CLAIM);
    const campaignId = await startedCampaign(sut.http, user, 'Quota race', leads(1, 'quota-race'));
    const cycle = runCycle(sut.http, user, campaignId);
    try {
      await answered.asked;
      await request(sut.http)
        .patch(`/api/${user.userId}/campaigns/${campaignId}`)
        .set(user.auth)
        .send({ dailyLimits: { profile_lookup: 0 } })
        .expect(200);
    } finally {
      answered.release();
    }
    const refused = await cycle;
    expect(refused).toMatchObject({ status: 'deferred', code: 'CLAIM_REFUSED' });
    expect(refused.message).toContain('claim refused: QUOTA_EXCEEDED but 0 of 50 used');

    await dueNow(campaignId);
    const parked = await runCycle(sut.http, user, campaignId);
    expect(model.requests).toHaveLength(1);
    expect(parked).toMatchObject({
      status: 'deferred',
      code: 'QUOTA_EXCEEDED',
      proposal: { by: 'controller' },
      task: { id: refused.task!.id },
    });
    expect((await taskRow(refused.task!.id)).next_run_at.getTime()).toBeGreaterThan(new Date(refused.task!.nextRunAt!).getTime());
    await nothingSent(campaignId);
  });

  it('INVALID_CONTEXT for a lead with its URL: the claim is refused and the task is not Failed; it runs again within the hour', async () => {
    answer({ error: { code: 'INVALID_CONTEXT', message: 'The lead has no LinkedIn URL I can use.' } });
    const campaignId = await startedCampaign(sut.http, user, 'Context talk', leads(1, 'context-talk'));

    const outcome = await runCycle(sut.http, user, campaignId);

    expect(outcome).toMatchObject({ status: 'deferred', code: 'CLAIM_REFUSED', task: { status: 'Pending' } });
    const task = await taskRow(outcome.task!.id);
    expect(task).toMatchObject({ status: 'Pending', last_error: 'CLAIM_REFUSED', output: null });
    expect(task.next_run_at.getTime()).toBeLessThan(Date.now() + 3_600_000);
    const rows = await auditRows(campaignId);
    expect(rows.map((row) => [row.tool, row.status, row.error_code])).toEqual([['linkedin_scrape_profile', 'rejected', 'CLAIM_REFUSED']]);
    expect(rows[0].arguments).toEqual({
      error: { code: 'INVALID_CONTEXT', message: 'The lead has no LinkedIn URL I can use.', suggestedAction: null, suggestedArgs: null },
    });
    expect(rows[0].result).toEqual({
      problems: ['The lead has no LinkedIn URL I can use.'],
      reportedBy: 'model',
      claim: 'refused',
      reason:
        'claim refused: INVALID_CONTEXT but the context is complete for linkedin_scrape_profile: ' +
        "the lead's LinkedIn URL is recorded, the task is open and the campaign active",
    });
    await nothingSent(campaignId);
  });

  it('INVALID_CONTEXT for an email task whose lead has no address left: the task fails, as before, without asking the model', async () => {
    answer({ error: { code: 'INVALID_CONTEXT', message: 'The lead has no email address.' } });
    const campaignId = await startedCampaign(sut.http, user, 'No address', leads(1, 'no-address'));
    await sql.query(`UPDATE leads SET email = NULL WHERE campaign_id = $1`, [campaignId]);
    await sql.query(`UPDATE outreach_tasks SET status = 'Completed', completed_at = now() WHERE campaign_id = $1 AND type <> 'SendEmail'`, [
      campaignId,
    ]);

    const outcome = await runCycle(sut.http, user, campaignId);

    expect(model.requests).toHaveLength(0);
    expect(outcome).toMatchObject({ status: 'failed', code: 'INVALID_CONTEXT', task: { type: 'SendEmail', status: 'Failed' } });
    expect(await taskRow(outcome.task!.id)).toMatchObject({
      status: 'Failed',
      last_error: 'INVALID_CONTEXT',
      output: { problems: ['the lead has no email address'] },
    });
    expect((await auditRows(campaignId)).map((row) => [row.tool, row.status, row.error_code])).toEqual([
      ['send_email', 'rejected', 'INVALID_CONTEXT'],
    ]);
    await nothingSent(campaignId);
  });

  describe("a cycle's decision row", () => {
    type DecisionRow = { id: string; status: string; decision_type: string; outreach_task_id: string | null; iterations: number };
    const decisions = (campaignId: string) =>
      sql.query<DecisionRow[]>(`SELECT id, status, decision_type, outreach_task_id, iterations FROM decision_logs WHERE campaign_id = $1`, [
        campaignId,
      ]);

    /** Runs one cycle whose model answers `value`, and reads the campaign's decision rows while the model is still answering. */
    async function cycleReadWhileAnswering(campaignId: string, value: unknown) {
      const answered = answerWhenReleased(value);
      const cycle = runCycle(sut.http, user, campaignId);
      let whileAnswering: DecisionRow[];
      try {
        await answered.asked;
        whileAnswering = await decisions(campaignId);
      } finally {
        answered.release();
      }
      return { whileAnswering, outcome: await cycle };
    }

    it('is written as pending before the model is asked, and settled once the cycle ends', async () => {
      const lead = leads(1, 'pending-decision');
      const campaignId = await startedCampaign(sut.http, user, 'Pending decision', lead);

      const { whileAnswering, outcome } = await cycleReadWhileAnswering(campaignId, lookUp(lead[0]));

      const row = { id: outcome.decisionId, outreach_task_id: outcome.task!.id };
      expect(whileAnswering).toEqual([{ ...row, status: 'pending', decision_type: 'PENDING', iterations: 0 }]);
      expect(outcome).toMatchObject({ status: 'completed' });
      expect(await decisions(campaignId)).toEqual([
        { ...row, status: 'completed', decision_type: 'linkedin_scrape_profile', iterations: 1 },
      ]);
    });

    it('is written as pending before the model is asked to wrap a campaign up, too', async () => {
      const campaignId = await startedCampaign(sut.http, user, 'Pending wrap-up', leads(1, 'pending-wrap-up'));
      await sql.query(`UPDATE outreach_tasks SET status = 'Completed', completed_at = now() WHERE campaign_id = $1`, [campaignId]);

      const { whileAnswering, outcome } = await cycleReadWhileAnswering(campaignId, {
        action: 'complete_campaign',
        args: { campaignId },
        reason: 'Every task of the campaign is finished.',
      });

      const row = { id: outcome.decisionId, outreach_task_id: null };
      expect(whileAnswering).toEqual([{ ...row, status: 'pending', decision_type: 'PENDING', iterations: 0 }]);
      expect(outcome).toMatchObject({ status: 'campaign_completed' });
      expect(await decisions(campaignId)).toEqual([
        { ...row, status: 'campaign_completed', decision_type: 'complete_campaign', iterations: 1 },
      ]);
    });
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
