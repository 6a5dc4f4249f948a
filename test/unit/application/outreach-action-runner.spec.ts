import type { TaskScope } from '../../../src/application/outreach/cycle';
import { type ActRoute, OutreachActionRunner } from '../../../src/application/outreach/outreach-action-runner';
import type { ChannelAction } from '../../../src/application/outreach/outreach-channels';
import type { BeginAction, BeginResult, ClaimedTask, TaskReview } from '../../../src/application/outreach/ports/outreach-cycle-store.port';
import type { HoldDraft, HoldResult } from '../../../src/application/outreach/ports/outreach-draft-store.port';
import { ChannelError } from '../../../src/domain/outreach/channel-errors';
import { idempotencyMaterial } from '../../../src/domain/outreach/planning';
import { MAX_TASK_ATTEMPTS, type OutreachTaskType, retryDelayMs } from '../../../src/domain/outreach/outreach-task';
import type { QuotaBlock } from '../../../src/domain/outreach/quota';
import { CLAIM, runnerOn } from '../../fakes/outreach/cycle-harness';
import { NoReviewDraftStore } from '../../fakes/outreach/no-review-draft-store';
import { LEAD, SECRET_NAMES, taskContext } from '../../fakes/outreach/proposals';
import {
  type Journal,
  MapSecretStore,
  NO_REVIEW,
  RecordingEmailChannel,
  RecordingLinkedInChannel,
  SingleTaskCycleStore,
} from '../../fakes/outreach/recording-outreach-ports';
import { RecordingAuditLog } from '../../fakes/recording-audit-log';
import { FixedClock } from '../../fakes/fixed-clock';
import { RecordingLogger } from '../../fakes/recording-logger';
import { RecordingMetrics } from '../../fakes/recording-metrics';
import { TODO_TOOLS } from '../../../src/application/todo/tools/todo-tool-definitions';
import type { PolicyRule } from '../../../src/domain/policy/policy';
import { policyGate, policyOf } from '../../fakes/policy';

const REASON = 'The next step of this task';
const MESSAGE = {
  action: 'linkedin_send_message',
  args: { profileUrl: LEAD.linkedinUrl, message: 'Hello Jane' },
  reason: REASON,
} as const satisfies ChannelAction;
const EMAIL = {
  action: 'send_email',
  args: { to: LEAD.email, subject: 'Hello', body: 'Hello Jane' },
  reason: REASON,
} as const satisfies ChannelAction;
const SHOWN = { proposal: null, validation: null };
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

/** A cycle store whose begin, once told an answer, gives it instead of reserving. */
class RefusingCycleStore extends SingleTaskCycleStore {
  answer: BeginResult | null = null;
  override begin(input: BeginAction): Promise<BeginResult> {
    if (!this.answer) return super.begin(input);
    this.begun.push(input);
    return Promise.resolve(this.answer);
  }
}

/** A draft store that holds every action it is given. */
class HoldingDraftStore extends NoReviewDraftStore {
  readonly held: HoldDraft[] = [];
  override hold(input: HoldDraft): Promise<HoldResult> {
    this.held.push(input);
    return Promise.resolve({ status: 'held', draftId: 'draft-1', argumentsHash: 'a'.repeat(64), expiresAt: input.expiresAt });
  }
}

/** The runner on in-memory ports, for a task of `type` claimed as `claim`; `begin` is what the store's begin answers, if not a reservation. */
function runner(
  options: {
    claim?: ClaimedTask;
    type?: OutreachTaskType;
    linkedin?: (journal: Journal) => RecordingLinkedInChannel;
    begin?: BeginResult;
    drafts?: NoReviewDraftStore;
    rules?: readonly PolicyRule[];
  } = {},
) {
  const journal: Journal = [];
  const claim = options.claim ?? CLAIM;
  const context = taskContext(options.type ?? 'SendLinkedInMessage');
  const store = new RefusingCycleStore(claim, context, journal);
  store.answer = options.begin ?? null;
  const linkedin = options.linkedin?.(journal) ?? new RecordingLinkedInChannel(journal);
  const email = new RecordingEmailChannel(journal);
  const secrets = new MapSecretStore(new Map([[SECRET_NAMES[0], 'a-session']]), journal);
  const audit = new RecordingAuditLog(journal);
  const clock = new FixedClock();
  const metrics = new RecordingMetrics();
  const policy = options.rules ? policyGate(policyOf(TODO_TOOLS, options.rules, 2), { clock }) : undefined;
  const logger = new RecordingLogger();
  const sut = runnerOn({ store, drafts: options.drafts, linkedin, email, secrets, audit, clock, metrics, logger, policy });
  const task: TaskScope = {
    decisionId: 'decision-1',
    started: clock.now(),
    campaignId: claim.campaignId,
    ownerId: claim.ownerId,
    taskId: claim.taskId,
    claim,
    context,
  };
  const act = (proposal: ChannelAction, route: ActRoute = { review: NO_REVIEW }) => sut.act(task, proposal, SHOWN, route);
  return { sut, task, act, journal, store, linkedin, email, secrets, audit, metrics, now: clock.now() };
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

describe(`${OutreachActionRunner.name}, refresh_session`, () => {
  const proposal = (secretName: string) => ({ action: 'refresh_session', args: { secretName }, reason: REASON }) as const;

  it('hands the named secret to LinkedIn, audits before and after without the secret, and makes the task due at once', async () => {
    const { sut, task, journal, linkedin, audit, now } = runner();

    const { outcome, settlement } = await sut.refreshSession(task, proposal(SECRET_NAMES[0]), SHOWN);

    expect(journal).toEqual(['audit:pending', 'secrets:fetch', 'linkedin:useSession', 'audit:succeeded']);
    expect(linkedin.calls).toEqual([{ method: 'useSession', input: { session: 'a-session' } }]);
    expect(JSON.stringify(audit.rows)).not.toContain('a-session');
    expect(outcome).toMatchObject({ status: 'deferred', code: null, execution: { status: 'succeeded' } });
    expect(settlement).toMatchObject({ kind: 'release', release: { status: 'Pending', nextRunAt: now, lastError: null } });
  });

  it('settles an unknown secret name as SECRET_NOT_FOUND: tried again later, failed on the last attempt', async () => {
    const early = runner();
    const last = runner({ claim: { ...CLAIM, attempts: MAX_TASK_ATTEMPTS } });

    const tried = await early.sut.refreshSession(early.task, proposal('nowhere'), SHOWN);
    const given = await last.sut.refreshSession(last.task, proposal('nowhere'), SHOWN);

    expect(early.linkedin.calls).toEqual([]);
    expect(early.audit.rows.map((row) => row.outcome?.errorCode ?? 'pending')).toEqual(['pending', 'SECRET_NOT_FOUND']);
    expect(tried).toMatchObject({
      outcome: { status: 'deferred', code: 'SECRET_NOT_FOUND' },
      settlement: { release: { status: 'Pending', nextRunAt: new Date(early.now.getTime() + retryDelayMs(CLAIM.attempts)) } },
    });
    expect(given).toMatchObject({
      outcome: { status: 'failed', code: 'SECRET_NOT_FOUND' },
      settlement: { release: { status: 'Failed' } },
    });
  });
});

describe('the outreach runner asks the policy in force before it acts', () => {
  const reviewAbroad: PolicyRule = {
    name: 'external-email-review',
    tools: ['send_email'],
    when: { recipientDomain: { notIn: ['example.com'] } },
    effect: 'ask-reviewer',
    reviewer: { timeoutMinutes: 90, fallback: 'reject' },
  };

  it("holds an email to another domain for a reviewer, with the rule's time and fallback, even where the campaign asks no review", async () => {
    const drafts = new HoldingDraftStore();
    const { act, email, now } = runner({ type: 'SendEmail', drafts, rules: [reviewAbroad] });
    const end = await act(EMAIL);
    expect(end.outcome).toMatchObject({ status: 'awaiting_review', code: 'AWAITING_REVIEW' });
    expect(drafts.held).toHaveLength(1);
    expect(drafts.held[0]).toMatchObject({
      onExpiry: 'reject',
      audit: { policy: { version: 2, rule: 'external-email-review', effect: 'ask-reviewer' } },
    });
    expect(drafts.held[0].expiresAt.getTime() - now.getTime()).toBe(90 * 60_000);
    expect(email.calls).toEqual([]);
  });

  it('sends an email to the domain the rule leaves out, and a draft its reviewer approved, without asking again', async () => {
    const drafts = new HoldingDraftStore();
    const inside = runner({ type: 'SendEmail', drafts, rules: [reviewAbroad] });
    await inside.act({ ...EMAIL, args: { ...EMAIL.args, to: 'jane@example.com' } });
    expect(inside.email.calls.filter((call) => call.method === 'send')).toHaveLength(1);
    expect(inside.store.begun[0].audit.policy).toEqual({ version: 2, rule: null, effect: 'allow', items: 1 });

    const approved = runner({ type: 'SendEmail', drafts, rules: [reviewAbroad] });
    await approved.act(EMAIL, { approved: { id: 'draft-1', quotaDay: '2026-11-22', attempt: 1, proposal: EMAIL } });
    expect(approved.email.calls.filter((call) => call.method === 'send')).toHaveLength(1);
    expect(drafts.held).toEqual([]);
  });

  it('cancels a task a deny rule refuses, audited with the rule, and sends nothing', async () => {
    const rules: PolicyRule[] = [{ name: 'no-linkedin', tools: ['linkedin_*'], effect: 'deny', reason: 'We do not message on LinkedIn.' }];
    const { act, linkedin, audit, store } = runner({ rules });
    const end = await act(MESSAGE);
    expect(end.outcome).toMatchObject({ status: 'failed', code: 'POLICY_DENIED', task: { status: 'Cancelled' } });
    expect(end.settlement).toMatchObject({ kind: 'release', release: { status: 'Cancelled', lastError: 'POLICY_DENIED' } });
    expect(audit.rows.map((row) => [row.status, row.outcome?.errorCode, row.entry.policy])).toEqual([
      ['rejected', 'POLICY_DENIED', { version: 2, rule: 'no-linkedin', effect: 'deny', items: 1 }],
    ]);
    expect(linkedin.calls).toEqual([]);
    expect(store.begun).toEqual([]);
  });

  it('defers a task past a limit until its window ends, audited with the limit, and sends nothing', async () => {
    const rules: PolicyRule[] = [
      { name: 'one-message', tools: ['linkedin_send_message'], effect: 'limit', limit: { max: 1, per: 'everyone', window: 'hour' } },
    ];
    const first = runner({ rules });
    await first.act(MESSAGE);
    const second = await first.act(MESSAGE);
    expect(second.outcome).toMatchObject({ status: 'deferred', code: 'POLICY_LIMIT_REACHED' });
    expect(second.settlement).toMatchObject({
      release: { status: 'Pending', lastError: 'POLICY_LIMIT_REACHED', nextRunAt: new Date(first.now.getTime() + 3_600_000) },
    });
    expect(first.audit.rows.at(-1)?.entry.policy).toEqual({ version: 2, rule: 'one-message', effect: 'limit', items: 1 });
    expect(first.linkedin.calls.filter((call) => call.method === 'sendMessage')).toHaveLength(1);
  });
});
