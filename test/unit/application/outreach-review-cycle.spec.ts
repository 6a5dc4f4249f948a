import type { Completion } from '../../../src/application/agent/ports/language-model.port';
import type { ApprovedDraft } from '../../../src/application/outreach/ports/outreach-cycle-store.port';
import type { HoldDraft, HoldResult } from '../../../src/application/outreach/ports/outreach-draft-store.port';
import { idempotencyMaterial } from '../../../src/domain/outreach/planning';
import type { ApprovalPolicy } from '../../../src/domain/outreach/review';
import { runOneCycle } from '../../fakes/outreach/cycle-harness';
import { NoReviewDraftStore } from '../../fakes/outreach/no-review-draft-store';
import { LEAD, taskContext } from '../../fakes/outreach/proposals';
import { say, ScriptedLanguageModel } from '../../fakes/scripted-language-model';

const CLAIM = {
  taskId: 'task-1',
  campaignId: taskContext('SendLinkedInMessage').campaign.id,
  ownerId: 'owner-1',
  workerId: 'w-1',
  attempts: 2,
};
const MESSAGE = {
  action: 'linkedin_send_message',
  args: { profileUrl: LEAD.linkedinUrl, message: 'Hello Jane' },
  reason: 'First contact after the look-up',
} as const;

/** A draft store that records what it holds. */
class ReviewingDraftStore extends NoReviewDraftStore {
  readonly held: HoldDraft[] = [];
  override hold(input: HoldDraft): Promise<HoldResult> {
    this.held.push(input);
    return Promise.resolve({ status: 'held', draftId: 'draft-1', argumentsHash: 'a'.repeat(64), expiresAt: input.expiresAt });
  }
}

/**
 * A cycle of the message task (test/fakes/outreach/cycle-harness.ts) whose model would propose
 * MESSAGE, in a campaign with `policy`, `approved` drafts of the kind so far, and the task's approved draft if given.
 */
function cycle(drafts: ReviewingDraftStore, policy: ApprovalPolicy, approved = 0, approvedDraft: ApprovedDraft | null = null) {
  const model = new ScriptedLanguageModel();
  model.use((): Completion => ({ ...say(''), text: JSON.stringify(MESSAGE) }));
  const review = { policy, approved, approvedDraft };
  return { run: () => runOneCycle(model, taskContext('SendLinkedInMessage'), CLAIM, { drafts, review }), model };
}

describe('review before send in a cycle', () => {
  it('holds a checked action as a draft in all mode: no begin, no channel call', async () => {
    const drafts = new ReviewingDraftStore();
    const { run } = cycle(drafts, { mode: 'all', firstN: 3 });

    const { outcome, journal, store } = await run();

    expect(outcome).toEqual(expect.objectContaining({ status: 'awaiting_review', code: 'AWAITING_REVIEW', execution: null }));
    expect(outcome.review).toEqual({ draftId: 'draft-1', argumentsHash: 'a'.repeat(64), expiresAt: expect.any(Date) });
    expect(drafts.held).toHaveLength(1);
    expect(drafts.held[0].proposal).toEqual(MESSAGE);
    expect(drafts.held[0].expiresAt.getTime() - drafts.held[0].now.getTime()).toBe(72 * 3_600_000);
    expect(store.begun).toHaveLength(0);
    expect(journal.filter((event) => event.startsWith('linkedin:') || event.startsWith('email:'))).toEqual([]);
  });

  it('runs an approved draft as reviewed, without the model, on the key of the attempt that drafted it', async () => {
    const approved: ApprovedDraft = {
      id: 'draft-7',
      attempt: 1,
      proposal: { ...MESSAGE, args: { ...MESSAGE.args, message: 'Edited by a person' } },
      quotaDay: '2026-11-20',
    };
    const drafts = new ReviewingDraftStore();
    const { run, model } = cycle(drafts, { mode: 'all', firstN: 3 }, 0, approved);

    const { outcome, store } = await run();

    expect(model.requests).toHaveLength(0);
    expect(drafts.held).toHaveLength(0);
    expect(store.begun).toHaveLength(1);
    expect(store.begun[0]).toEqual(
      expect.objectContaining({
        approvedDraftId: 'draft-7',
        day: '2026-11-20',
        idempotencyMaterial: idempotencyMaterial(CLAIM.taskId, 1, approved.proposal),
      }),
    );
    expect(outcome.proposal).toEqual(expect.objectContaining({ args: approved.proposal.args }));
  });

  it('holds in first_n mode until the kind has its N approvals, then runs alone', async () => {
    const policy: ApprovalPolicy = { mode: 'first_n', firstN: 3 };
    const holding = new ReviewingDraftStore();
    const held = await cycle(holding, policy, 2).run();
    expect(held.outcome.status).toBe('awaiting_review');
    expect(holding.held).toHaveLength(1);

    const running = new ReviewingDraftStore();
    const ran = await cycle(running, policy, 3).run();
    expect(ran.outcome.status).toBe('completed');
    expect(running.held).toHaveLength(0);
    expect(ran.store.begun).toHaveLength(1);
  });
});
