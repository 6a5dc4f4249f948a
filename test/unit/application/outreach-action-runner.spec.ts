import { OutreachActionRunner } from '../../../src/application/outreach/outreach-action-runner';
import type { TaskReview } from '../../../src/application/outreach/ports/outreach-cycle-store.port';
import { ChannelError } from '../../../src/domain/outreach/channel-errors';
import { idempotencyMaterial } from '../../../src/domain/outreach/planning';
import { MAX_TASK_ATTEMPTS, retryDelayMs } from '../../../src/domain/outreach/outreach-task';
import type { QuotaBlock } from '../../../src/domain/outreach/quota';
import { CLAIM } from '../../fakes/outreach/cycle-harness';
import { LEAD } from '../../fakes/outreach/proposals';
import { type Journal, RecordingLinkedInChannel } from '../../fakes/outreach/recording-outreach-ports';
import { EMAIL, HoldingDraftStore, MESSAGE, runner } from '../../fakes/outreach/action-runner-harness';

const EVERY_ACTION_REVIEWED: TaskReview = { policy: { mode: 'all', firstN: 3 }, approved: 0, approvedDraft: null };
const BLOCK: QuotaBlock = {
  kind: 'linkedin_message',
  scope: 'campaign',
  window: 'day',
  limit: 50,
  used: 50,
  until: new Date('2026-11-23T00:00:00.000Z'),
};

/** A LinkedIn channel whose sendMessage fails with `error`, and whose look-up by key answers `found` (as the recording channel would by default). */
class FailingLinkedInChannel extends RecordingLinkedInChannel {
  constructor(
    journal: Journal,
    private readonly error: Error,
    private readonly found?: Awaited<ReturnType<RecordingLinkedInChannel['find']>>,
  ) {
    super(journal);
  }
  override async sendMessage(input: { profileUrl: string; message: string; idempotencyKey: string }): Promise<{ messageId: string }> {
    await super.sendMessage(input);
    throw this.error;
  }
  override async find(idempotencyKey: string) {
    const recorded = await super.find(idempotencyKey);
    return this.found === undefined ? recorded : this.found;
  }
}

/** A LinkedIn channel that accepts messages but cannot find them again by their key. */
class ForgetfulLinkedInChannel extends RecordingLinkedInChannel {
  override async find(idempotencyKey: string) {
    await super.find(idempotencyKey);
    return null;
  }
}
describe(OutreachActionRunner.name, () => {
  it('runs a LinkedIn message once, on LinkedIn, with the idempotency key its begin reserved', async () => {
    const { act, linkedin, email } = runner();

    await act(MESSAGE);

    expect(linkedin.calls.filter((call) => call.method === 'sendMessage')).toEqual([
      { method: 'sendMessage', input: { profileUrl: LEAD.linkedinUrl, message: 'Hello Jane', idempotencyKey: 'key-1' } },
    ]);
    expect(email.calls).toEqual([]);
  });

  it('runs an email on the email channel, with its key and the unsubscribe footer, and nothing on LinkedIn', async () => {
    const { act, linkedin, email } = runner({ type: 'SendEmail' });

    await act(EMAIL);

    expect(email.calls.filter((call) => call.method === 'send')).toEqual([
      { method: 'send', input: expect.objectContaining({ to: LEAD.email, subject: 'Hello', idempotencyKey: 'key-1' }) },
    ]);
    expect(email.calls[0].input.body).toContain('https://bridle.example');
    expect(linkedin.calls).toEqual([]);
  });

  it('writes the pending audit row (in begin) before the channel acts, and the row names the action and its arguments', async () => {
    const { act, journal, store } = runner();

    await act(MESSAGE);

    expect(journal.indexOf('store:begin')).toBeLessThan(journal.indexOf('linkedin:sendMessage'));
    expect(store.begun[0].audit).toMatchObject({
      source: 'outreach',
      actorId: CLAIM.ownerId,
      campaignId: CLAIM.campaignId,
      outreachTaskId: CLAIM.taskId,
      decisionId: 'decision-1',
      tool: 'linkedin_send_message',
      arguments: MESSAGE.args,
    });
    expect(store.begun[0]).toMatchObject({ decisionId: 'decision-1', kind: 'linkedin_message', day: '2026-11-22' });
  });

  it('returns a verified action as its settlement, and leaves writing it to the end of the cycle', async () => {
    const { act, store } = runner();

    const { outcome, settlement } = await act(MESSAGE);

    expect(outcome).toMatchObject({
      status: 'completed',
      code: null,
      execution: { status: 'succeeded', idempotencyKey: 'key-1', errorCode: null },
      verification: { verified: true },
      task: { id: CLAIM.taskId, status: 'Completed', nextRunAt: null },
    });
    expect(settlement).toEqual({
      kind: 'action',
      action: expect.objectContaining({
        actionId: 'action-1',
        taskId: CLAIM.taskId,
        pendingSeq: 1,
        outcome: { status: 'succeeded', result: expect.anything(), durationMs: expect.any(Number) },
        task: expect.objectContaining({ status: 'Completed', lastError: null }),
        refundQuota: null,
      }),
    });
    expect(store.finished).toEqual([]);
    expect(store.released).toEqual([]);
  });

  it('settles a retryable channel failure as failed with the slot given back, and the task due again after its backoff', async () => {
    const error = new ChannelError('RATE_LIMITED', 'slow down', 'no');
    const { act, now } = runner({ linkedin: (journal) => new FailingLinkedInChannel(journal, error) });

    const { outcome, settlement } = await act(MESSAGE);

    const nextRunAt = new Date(now.getTime() + retryDelayMs(CLAIM.attempts));
    expect(outcome).toMatchObject({
      status: 'deferred',
      code: 'CHANNEL_ERROR',
      execution: { status: 'failed', errorCode: 'RATE_LIMITED' },
    });
    expect(settlement).toMatchObject({
      kind: 'action',
      action: {
        outcome: { status: 'failed', errorCode: 'RATE_LIMITED', result: { error: 'slow down' } },
        task: { status: 'Pending', nextRunAt, lastError: 'RATE_LIMITED' },
        refundQuota: { day: '2026-11-22' },
      },
    });
  });

  it('fails the task on a channel failure that is not worth retrying, or on its last attempt', async () => {
    const rejected = runner({ linkedin: (journal) => new FailingLinkedInChannel(journal, new ChannelError('REJECTED', 'no', 'no')) });
    const last = runner({
      claim: { ...CLAIM, attempts: MAX_TASK_ATTEMPTS },
      linkedin: (journal) => new FailingLinkedInChannel(journal, new ChannelError('UNAVAILABLE', 'down', 'no')),
    });

    for (const { act } of [rejected, last]) {
      const { outcome, settlement } = await act(MESSAGE);
      expect(outcome).toMatchObject({ status: 'failed', code: 'CHANNEL_ERROR' });
      expect(settlement).toMatchObject({ kind: 'action', action: { task: { status: 'Failed' }, refundQuota: { day: '2026-11-22' } } });
    }
  });

  it('makes a task whose session expired due again at once, for a cycle that fetches a fresh session', async () => {
    const error = new ChannelError('SESSION_EXPIRED', 'log in again', 'no');
    const { act, now } = runner({ linkedin: (journal) => new FailingLinkedInChannel(journal, error) });

    const { settlement } = await act(MESSAGE);

    expect(settlement).toMatchObject({ action: { task: { status: 'Pending', nextRunAt: now, lastError: 'SESSION_EXPIRED' } } });
  });

  it('asks the channel by key after a failure that may have acted, and counts a message it finds as done, without asking again', async () => {
    const error = new ChannelError('TIMEOUT', 'no answer', 'maybe');
    const { act, linkedin } = runner({ linkedin: (journal) => new FailingLinkedInChannel(journal, error) });

    const { outcome, settlement } = await act(MESSAGE);

    expect(linkedin.calls.map((call) => call.method)).toEqual(['sendMessage', 'find']);
    expect(outcome).toMatchObject({
      status: 'completed',
      verification: { verified: true, detail: expect.stringContaining('found by its key') },
    });
    expect(settlement).toMatchObject({ action: { outcome: { status: 'succeeded' }, refundQuota: null } });
  });

  it('settles an action nobody can tell happened as unknown, for a person to review, and keeps its slot', async () => {
    const error = new ChannelError('TIMEOUT', 'no answer', 'maybe');
    const { act } = runner({ linkedin: (journal) => new FailingLinkedInChannel(journal, error, 'unknowable') });

    const { outcome, settlement } = await act(MESSAGE);

    expect(outcome).toMatchObject({ status: 'unknown', code: 'CHANNEL_ERROR', execution: { status: 'unknown', errorCode: 'TIMEOUT' } });
    expect(settlement).toMatchObject({
      action: {
        outcome: { status: 'unknown' },
        task: { status: 'Failed', lastError: 'UNKNOWN_OUTCOME', output: { review: 'the action may have happened' } },
        refundQuota: null,
      },
    });
  });

  it('fails the task when the channel accepted a message but does not find it by its key (verification mismatch)', async () => {
    const { act } = runner({ linkedin: (journal) => new ForgetfulLinkedInChannel(journal) });

    const { outcome, settlement } = await act(MESSAGE);

    const detail = 'the channel accepted the message but does not find it by its key';
    expect(outcome).toMatchObject({ status: 'failed', code: 'VERIFICATION_FAILED', verification: { verified: false, detail } });
    expect(settlement).toMatchObject({
      action: {
        outcome: { status: 'failed', errorCode: 'VERIFICATION_FAILED', result: { detail } },
        task: { status: 'Failed', lastError: 'VERIFICATION_FAILED', output: { detail } },
        refundQuota: null,
      },
    });
  });

  it('does not act on a key begin already knows: audited as a duplicate, and the task failed', async () => {
    const { act, audit, linkedin } = runner({ begin: { status: 'duplicate', idempotencyKey: 'key-0' } });

    const { outcome, settlement } = await act(MESSAGE);

    expect(linkedin.calls).toEqual([]);
    expect(audit.rows.map((row) => [row.outcome?.status, row.outcome?.errorCode, row.outcome?.result])).toEqual([
      ['rejected', 'DUPLICATE_ACTION', { idempotencyKey: 'key-0' }],
    ]);
    expect(outcome).toMatchObject({ status: 'failed', code: 'DUPLICATE_ACTION' });
    expect(settlement).toMatchObject({ kind: 'release', release: { status: 'Failed', lastError: 'DUPLICATE_ACTION' } });
  });

  it('does nothing and settles nothing when the claim expired before acting', async () => {
    const { act, audit, linkedin } = runner({ begin: { status: 'lease_lost' } });

    const { outcome, settlement } = await act(MESSAGE);

    expect(outcome).toMatchObject({ status: 'failed', code: 'LEASE_LOST' });
    expect(settlement).toBeNull();
    expect([...linkedin.calls, ...audit.rows]).toEqual([]);
  });

  it('parks the task until the next slot when the quota was taken meanwhile, audited with the limit', async () => {
    const { act, audit, linkedin, metrics } = runner({ begin: { status: 'quota_exceeded', scope: 'campaign', block: BLOCK } });

    const { outcome, settlement } = await act(MESSAGE);

    expect(linkedin.calls).toEqual([]);
    expect(audit.rows.map((row) => [row.outcome?.status, row.outcome?.errorCode])).toEqual([['rejected', 'QUOTA_EXCEEDED']]);
    expect(metrics.calls.filter((call) => call.name === 'quotaRejection')).toHaveLength(1);
    expect(outcome).toMatchObject({ status: 'deferred', code: 'QUOTA_EXCEEDED' });
    expect(settlement).toMatchObject({
      kind: 'release',
      release: { status: 'Pending', nextRunAt: BLOCK.until, lastError: 'QUOTA_EXCEEDED' },
    });
  });

  it('holds the action as a draft, without begin or a channel call, when the campaign reviews every action', async () => {
    const drafts = new HoldingDraftStore();
    const { act, store, linkedin } = runner({ drafts });

    const { outcome, settlement } = await act(MESSAGE, { review: EVERY_ACTION_REVIEWED });

    expect(drafts.held).toHaveLength(1);
    expect(store.begun).toEqual([]);
    expect(linkedin.calls).toEqual([]);
    expect(outcome).toMatchObject({ status: 'awaiting_review', code: 'AWAITING_REVIEW', task: { status: 'AwaitingReview' } });
    expect(settlement).toBeNull();
  });

  it('runs an approved draft on the day its slot was held and the key of the attempt that drafted it', async () => {
    const { act, store } = runner({ claim: { ...CLAIM, attempts: 3 } });
    const approved = { id: 'draft-1', attempt: 2, proposal: MESSAGE, quotaDay: '2026-11-21' };

    await act(MESSAGE, { approved });

    expect(store.begun[0]).toMatchObject({
      approvedDraftId: 'draft-1',
      day: '2026-11-21',
      idempotencyMaterial: idempotencyMaterial(CLAIM.taskId, 2, MESSAGE),
    });
  });
});
