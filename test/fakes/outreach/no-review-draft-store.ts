import type { ClaimedTask } from '../../../src/application/outreach/ports/outreach-cycle-store.port';
import {
  type ExpiryReport,
  type HoldDraft,
  type HoldResult,
  OutreachDraftStore,
  type ReviewResult,
  type StoredDraft,
} from '../../../src/application/outreach/ports/outreach-draft-store.port';
import type { Page } from '../../../src/application/shared/page';
import type { ActionKind } from '../../../src/domain/outreach/outreach-task';
import type { ApprovalPolicy, DraftStatus, DraftTarget } from '../../../src/domain/outreach/review';

/** A campaign whose approval mode is `none`: no action is ever held for review. */
export class NoReviewDraftStore extends OutreachDraftStore {
  reviewState(_campaignId: string, _kind: ActionKind): Promise<{ policy: ApprovalPolicy; approved: number }> {
    return Promise.resolve({ policy: { mode: 'none', firstN: 3 }, approved: 0 });
  }
  hold(_input: HoldDraft): Promise<HoldResult> {
    throw new Error('no draft is held when the approval mode is none');
  }
  approvedFor(_claim: ClaimedTask): Promise<StoredDraft | null> {
    return Promise.resolve(null);
  }
  list(_ownerId: string, _status: DraftStatus | null, _limit: number, _cursor: string | null): Promise<Page<StoredDraft>> {
    return Promise.resolve({ items: [], nextCursor: null });
  }
  get(_ownerId: string, _draftId: string): Promise<{ draft: StoredDraft; target: DraftTarget } | null> {
    return Promise.resolve(null);
  }
  approve(): Promise<ReviewResult> {
    return Promise.resolve({ ok: false, problem: 'not_found' });
  }
  reject(): Promise<ReviewResult> {
    return Promise.resolve({ ok: false, problem: 'not_found' });
  }
  expire(_now: Date, _limit: number): Promise<ExpiryReport> {
    return Promise.resolve({ expired: 0, voided: 0 });
  }
}
