import type { Completion } from '../../../src/application/agent/ports/language-model.port';
import type { ClaimedTask } from '../../../src/application/outreach/ports/outreach-cycle-store.port';
import type { HoldDraft, HoldResult, StoredDraft } from '../../../src/application/outreach/ports/outreach-draft-store.port';
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

/** A draft store with a policy, that records what it holds and hands out one approved draft if given. */
class ReviewingDraftStore extends NoReviewDraftStore {
  readonly held: HoldDraft[] = [];
  constructor(
    private readonly policy: ApprovalPolicy,
    private readonly approved: StoredDraft | null = null,
  ) {
    super();
  }
  override reviewState(): Promise<{ policy: ApprovalPolicy; approved: number }> {
    return Promise.resolve({ policy: this.policy, approved: 0 });
  }
  override hold(input: HoldDraft): Promise<HoldResult> {
    this.held.push(input);
    return Promise.resolve({ status: 'held', draftId: 'draft-1', argumentsHash: 'a'.repeat(64), expiresAt: input.expiresAt });
  }
  override approvedFor(_claim: ClaimedTask): Promise<StoredDraft | null> {
    return Promise.resolve(this.approved);
  }
}

/** A cycle of the message task (test/fakes/outreach/cycle-harness.ts) whose model would propose MESSAGE. */
function cycle(drafts: ReviewingDraftStore) {
  const model = new ScriptedLanguageModel();
  model.use((): Completion => ({ ...say(''), text: JSON.stringify(MESSAGE) }));
  return { run: () => runOneCycle(model, taskContext('SendLinkedInMessage'), CLAIM, { drafts }), model };
}

describe('review before send in a cycle', () => {
  it('holds a checked action as a draft in all mode: no begin, no channel call', async () => {
    const drafts = new ReviewingDraftStore({ mode: 'all', firstN: 3 });
    const { run } = cycle(drafts);

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
    const approved: StoredDraft = {
      id: 'draft-7',
      status: 'approved',
      ownerId: CLAIM.ownerId,
      campaignId: CLAIM.campaignId,
      campaignName: 'Q1',
      taskId: CLAIM.taskId,
      taskType: 'SendLinkedInMessage',
      leadId: 'lead-1',
      leadName: LEAD.name,
      decisionId: 'd-1',
      attempt: 1,
      kind: 'linkedin_message',
      proposal: { ...MESSAGE, args: { ...MESSAGE.args, message: 'Edited by a person' } },
      argumentsHash: 'b'.repeat(64),
      quotaDay: '2026-11-20',
      edited: true,
      reviewerId: CLAIM.ownerId,
      reviewedAt: new Date(),
      createdAt: new Date(),
      expiresAt: new Date(),
    };
    const drafts = new ReviewingDraftStore({ mode: 'all', firstN: 3 }, approved);
    const { run, model } = cycle(drafts);

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
});
