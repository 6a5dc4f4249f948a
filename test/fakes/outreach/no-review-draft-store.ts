import {
  type EscalatedDraft,
  type ExpiryReport,
  type HoldDraft,
  type HoldResult,
  OutreachDraftStore,
  type ReviewResult,
  type StoredDraft,
} from '../../../src/application/outreach/ports/outreach-draft-store.port';
import type { Page } from '../../../src/application/shared/page';
import type { DraftStatus, DraftTarget } from '../../../src/domain/outreach/review';

/** A draft store for campaigns whose approval mode is `none`: no action is ever held for review. */
export class NoReviewDraftStore extends OutreachDraftStore {
  hold(_input: HoldDraft): Promise<HoldResult> {
    throw new Error('no draft is held when the approval mode is none');
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
    return Promise.resolve({ expired: 0, voided: 0, escalated: 0 });
  }
  listEscalated(_limit: number, _cursor: string | null): Promise<Page<EscalatedDraft>> {
    return Promise.resolve({ items: [], nextCursor: null });
  }
  escalatedOwner(_draftId: string): Promise<string | null> {
    return Promise.resolve(null);
  }
}
