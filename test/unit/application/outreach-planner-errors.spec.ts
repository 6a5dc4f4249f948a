import { hoursUntilReset } from '../../../src/domain/outreach/quota';
import { MAX_TASK_ATTEMPTS } from '../../../src/domain/outreach/outreach-task';
import { CLAIM, runOneCycle } from '../../fakes/outreach/cycle-harness';
import { LEAD, taskContext } from '../../fakes/outreach/proposals';
import { say, ScriptedLanguageModel } from '../../fakes/scripted-language-model';

/** A model whose answers are these JSON values, one per call. */
function answering(...answers: unknown[]): ScriptedLanguageModel {
  const model = new ScriptedLanguageModel();
  model.use((_, call) => ({ ...say(''), text: JSON.stringify(answers[call - 1]) }));
  return model;
}

const error = (code: string, extra: Record<string, unknown> = {}) => ({
  error: { code, message: `Reported ${code} for this task.`, ...extra },
});

describe("a planner answer in seed 000's error shape, through the cycle", () => {
  it('QUOTA_EXCEEDED: the task waits for the suggested duration, as for a wait_cooldown; both rows audited, nothing sent', async () => {
    const model = answering(error('QUOTA_EXCEEDED', { suggestedAction: 'wait_cooldown', suggestedArgs: { durationHours: 24 } }));
    const run = await runOneCycle(model, taskContext('SendLinkedInMessage'));

    expect(model.requests).toHaveLength(1);
    expect(run.acting).toEqual([]);
    const until = new Date(run.now.getTime() + 24 * 3_600_000);
    expect(run.store.released).toEqual([{ status: 'Pending', nextRunAt: until, lastError: 'QUOTA_EXCEEDED' }]);
    expect(run.outcome).toMatchObject({
      status: 'deferred',
      code: 'QUOTA_EXCEEDED',
      message: 'The model proposed no action (QUOTA_EXCEEDED): Reported QUOTA_EXCEEDED for this task. Waiting 24 hours.',
      proposal: { action: 'wait_cooldown', args: { durationHours: 24 }, by: 'model', reason: expect.stringContaining('quota exceeded') },
      validation: { accepted: true, attempts: 1, problems: [] },
      task: { status: 'Pending', nextRunAt: until },
    });
    expect(run.audit.rows.map((row) => [row.entry.tool, row.outcome?.status, row.outcome?.errorCode])).toEqual([
      ['linkedin_send_message', 'rejected', 'QUOTA_EXCEEDED'],
      ['wait_cooldown', 'succeeded', undefined],
    ]);
    expect(run.audit.rows[0].entry.arguments).toEqual({
      error: {
        code: 'QUOTA_EXCEEDED',
        message: 'Reported QUOTA_EXCEEDED for this task.',
        suggestedAction: 'wait_cooldown',
        suggestedArgs: { durationHours: 24 },
      },
    });
    expect(run.audit.rows[0].outcome?.result).toEqual({
      problems: ['Reported QUOTA_EXCEEDED for this task.'],
      reportedBy: 'model',
      durationHours: 24,
    });
    expect(run.audit.rows[1].outcome?.result).toEqual({ until });
    expect(run.store.decisions[0]).toMatchObject({ status: 'deferred', decisionType: 'wait_cooldown', failureClass: null });
  });

  it.each([
    ['no suggestion', {}],
    ['a wait past the contract', { suggestedAction: 'wait_cooldown', suggestedArgs: { durationHours: 500 } }],
    ['another action', { suggestedAction: 'send_email', suggestedArgs: { durationHours: 2 } }],
  ])('QUOTA_EXCEEDED with %s: the task waits until the next UTC midnight', async (_, extra) => {
    const run = await runOneCycle(answering(error('QUOTA_EXCEEDED', extra)), taskContext('SendEmail'));
    const hours = hoursUntilReset(run.now);
    expect(run.outcome).toMatchObject({ status: 'deferred', code: 'QUOTA_EXCEEDED', proposal: { args: { durationHours: hours } } });
    expect(run.store.released[0]).toEqual({
      status: 'Pending',
      nextRunAt: new Date(run.now.getTime() + Math.round(hours * 3_600_000)),
      lastError: 'QUOTA_EXCEEDED',
    });
    expect(run.acting).toEqual([]);
  });

  it('INVALID_CONTEXT: the task fails as for the controller’s own INVALID_CONTEXT, audited', async () => {
    const run = await runOneCycle(answering(error('INVALID_CONTEXT')), taskContext('ScrapeProfile'));
    expect(run.outcome).toMatchObject({
      status: 'failed',
      code: 'INVALID_CONTEXT',
      message: 'Not run: The model proposed no action (INVALID_CONTEXT): Reported INVALID_CONTEXT for this task.',
      validation: {
        accepted: false,
        attempts: 1,
        problems: ['the model reported INVALID_CONTEXT: Reported INVALID_CONTEXT for this task.'],
      },
      task: { status: 'Failed' },
    });
    expect(run.store.released).toEqual([
      { status: 'Failed', lastError: 'INVALID_CONTEXT', output: { problems: ['Reported INVALID_CONTEXT for this task.'] } },
    ]);
    expect(run.audit.rows.map((row) => [row.entry.tool, row.outcome?.status, row.outcome?.errorCode])).toEqual([
      ['linkedin_scrape_profile', 'rejected', 'INVALID_CONTEXT'],
    ]);
    expect(run.store.decisions[0]).toMatchObject({ status: 'failed', failureClass: 'INVALID_CONTEXT' });
    expect(run.acting).toEqual([]);
  });

  it('NO_VALID_ACTION: the task waits with a backoff, as when no answer was valid, and fails on its last attempt', async () => {
    const first = await runOneCycle(
      answering(error('NO_VALID_ACTION', { suggestedAction: 'complete_campaign' })),
      taskContext('SendEmail'),
    );
    expect(first.outcome).toMatchObject({ status: 'deferred', code: 'NO_VALID_ACTION', validation: { accepted: false, attempts: 1 } });
    expect(first.store.released).toEqual([
      { status: 'Pending', nextRunAt: new Date(first.now.getTime() + 60_000), lastError: 'NO_VALID_ACTION' },
    ]);
    expect(first.audit.rows.map((row) => [row.entry.tool, row.outcome?.errorCode])).toEqual([['send_email', 'NO_VALID_ACTION']]);
    expect(first.store.decisions[0]).toMatchObject({ failureClass: 'NO_VALID_ACTION' });

    const last = await runOneCycle(answering(error('NO_VALID_ACTION')), taskContext('SendEmail'), {
      ...CLAIM,
      attempts: MAX_TASK_ATTEMPTS,
    });
    expect(last.outcome).toMatchObject({ status: 'failed', code: 'NO_VALID_ACTION' });
    expect(last.store.released).toEqual([
      { status: 'Failed', lastError: 'NO_VALID_ACTION', output: { problems: ['Reported NO_VALID_ACTION for this task.'] } },
    ]);
  });

  it('refuses a malformed error answer like any bad proposal (audited, re-asked), then takes the next answer', async () => {
    const model = answering(
      { error: { code: 'OUT_OF_IDEAS', message: '' } },
      { action: 'send_email', args: { to: LEAD.email, subject: 'Hello', body: 'Hello Jane' }, reason: 'The task asks for an email.' },
    );
    const run = await runOneCycle(model, taskContext('SendEmail'));
    expect(model.requests).toHaveLength(2);
    expect(run.outcome).toMatchObject({ status: 'completed', validation: { accepted: true, attempts: 2 } });
    const refused = run.audit.rows[0];
    expect(refused.entry.tool).toBe('invalid_proposal');
    expect(refused.outcome).toMatchObject({ status: 'rejected', errorCode: 'INVALID_PROPOSAL' });
    expect((refused.outcome?.result as { problems: string[] }).problems).toEqual([
      'error.code must be one of QUOTA_EXCEEDED, INVALID_CONTEXT, NO_VALID_ACTION',
      'error.message must be a text of 1 to 500 characters',
    ]);
    expect(run.acting).toEqual(['email:send']);
  });

  it('takes an error answer given when re-asked after a refused proposal', async () => {
    const model = answering({ action: 'send_email', args: { to: 'someone@else.example' } }, error('NO_VALID_ACTION'));
    const run = await runOneCycle(model, taskContext('SendEmail'));
    expect(run.outcome).toMatchObject({ status: 'deferred', code: 'NO_VALID_ACTION', validation: { accepted: false, attempts: 2 } });
    expect(run.audit.rows.map((row) => row.outcome?.errorCode)).toEqual(['INVALID_PROPOSAL', 'NO_VALID_ACTION']);
    expect(run.acting).toEqual([]);
  });
});
