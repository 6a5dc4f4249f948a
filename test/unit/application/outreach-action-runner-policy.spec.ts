import type { PolicyRule } from '../../../src/domain/policy/policy';
import { EMAIL, HoldingDraftStore, MESSAGE, runner } from '../../fakes/outreach/action-runner-harness';

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
