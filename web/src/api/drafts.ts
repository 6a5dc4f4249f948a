/** Outreach drafts waiting for review: the owner's own, and the ones a policy escalated to the admins. */
import type {
  ApproveDraftData,
  ApproveDraftResponse,
  ApproveEscalatedDraftData,
  ApproveEscalatedDraftResponse,
  DraftPageDto,
  DraftResponseDto,
  EscalatedDraftPageDto,
  EscalatedDraftResponseDto,
  ListDraftsData,
  ListDraftsResponse,
  ListEscalatedDraftsData,
  ListEscalatedDraftsResponse,
  RejectDraftData,
  RejectDraftResponse,
  RejectEscalatedDraftData,
  RejectEscalatedDraftResponse,
} from '../generated/types.gen';
import { json, type Session, url } from './http';

export type Draft = DraftResponseDto;
export type EscalatedDraft = EscalatedDraftResponseDto;
export type DraftEdits = NonNullable<ApproveDraftData['body']['edits']>;

/**
 * Who decides a draft: its owner, on their own routes, or an admin deciding an escalated draft
 * in the owner's stead. Either approves exactly the draft the person read (its hash).
 */
export interface DraftReview {
  approve(draft: Draft, edits?: DraftEdits): Promise<Draft>;
  reject(draft: Draft): Promise<Draft>;
}

/** The owner's drafts waiting for review, newest first (one page of 100). */
export async function listDrafts(session: Session): Promise<DraftPageDto> {
  const path = url<ListDraftsData>('/api/{userId}/outreach/drafts', {
    path: { userId: session.userId },
    query: { status: 'awaiting_review', limit: 100 },
  });
  return json<ListDraftsResponse>('GET', path, session);
}

/** An admin's: every owner's drafts a policy rule escalated, still waiting, the latest escalated first (one page of 100). */
export async function listEscalatedDrafts(session: Session): Promise<EscalatedDraftPageDto> {
  const path = url<ListEscalatedDraftsData>('/admin/review-queue', { query: { limit: 100 } });
  return json<ListEscalatedDraftsResponse>('GET', path, session);
}

const decision = (draft: Draft, edits?: DraftEdits): ApproveDraftData['body'] => ({
  argumentsHash: draft.argumentsHash,
  ...(edits && { edits }),
});

/** The person deciding their own drafts. */
export function ownReview(session: Session): DraftReview {
  const path = (draftId: string) => ({ path: { userId: session.userId, draftId } });
  return {
    approve: (draft, edits) =>
      json<ApproveDraftResponse>(
        'POST',
        url<ApproveDraftData>('/api/{userId}/outreach/drafts/{draftId}/approve', path(draft.id)),
        session,
        decision(draft, edits),
      ),
    reject: (draft) =>
      json<RejectDraftResponse>(
        'POST',
        url<RejectDraftData>('/api/{userId}/outreach/drafts/{draftId}/reject', path(draft.id)),
        session,
        decision(draft),
      ),
  };
}

/** An admin deciding escalated drafts, in their owners' stead. */
export function escalatedReview(session: Session): DraftReview {
  const path = (draftId: string) => ({ path: { draftId } });
  return {
    approve: (draft, edits) =>
      json<ApproveEscalatedDraftResponse>(
        'POST',
        url<ApproveEscalatedDraftData>('/admin/review-queue/{draftId}/approve', path(draft.id)),
        session,
        decision(draft, edits),
      ),
    reject: (draft) =>
      json<RejectEscalatedDraftResponse>(
        'POST',
        url<RejectEscalatedDraftData>('/admin/review-queue/{draftId}/reject', path(draft.id)),
        session,
        decision(draft),
      ),
  };
}
