/** Outreach drafts waiting for review: the owner's own, and the ones a policy escalated to the admins. */
import type {
  ApproveDraftData,
  ApproveEscalatedDraftData,
  DraftPageDto,
  DraftResponseDto,
  EscalatedDraftPageDto,
  EscalatedDraftResponseDto,
  GetDraftData,
  GetDraftResponse,
  ListDraftsData,
  ListDraftsResponse,
  ListEscalatedDraftsData,
  ListEscalatedDraftsResponse,
  RejectDraftData,
  RejectEscalatedDraftData,
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

/** One of the owner's drafts, whatever became of it (a link's `draft=<id>`). */
export async function getDraft(session: Session, draftId: string): Promise<Draft> {
  const path = url<GetDraftData>('/api/{userId}/outreach/drafts/{draftId}', { path: { userId: session.userId, draftId } });
  return json<GetDraftResponse>('GET', path, session);
}

/** An admin's: every owner's drafts a policy rule escalated, still waiting, the latest escalated first (one page of 100). */
export async function listEscalatedDrafts(session: Session): Promise<EscalatedDraftPageDto> {
  const path = url<ListEscalatedDraftsData>('/admin/review-queue', { query: { limit: 100 } });
  return json<ListEscalatedDraftsResponse>('GET', path, session);
}

/** A review on two routes: both take the hash the person read (and approval their edits), both answer the draft. */
function reviewOn(session: Session, approveUrl: (draftId: string) => string, rejectUrl: (draftId: string) => string): DraftReview {
  const decision = (draft: Draft, edits?: DraftEdits): ApproveDraftData['body'] => ({
    argumentsHash: draft.argumentsHash,
    ...(edits && { edits }),
  });
  return {
    approve: (draft, edits) => json<Draft>('POST', approveUrl(draft.id), session, decision(draft, edits)),
    reject: (draft) => json<Draft>('POST', rejectUrl(draft.id), session, decision(draft)),
  };
}

/** The person deciding their own drafts. */
export function ownReview(session: Session): DraftReview {
  const path = (draftId: string) => ({ path: { userId: session.userId, draftId } });
  return reviewOn(
    session,
    (draftId) => url<ApproveDraftData>('/api/{userId}/outreach/drafts/{draftId}/approve', path(draftId)),
    (draftId) => url<RejectDraftData>('/api/{userId}/outreach/drafts/{draftId}/reject', path(draftId)),
  );
}

/** An admin deciding escalated drafts, in their owners' stead. */
export function escalatedReview(session: Session): DraftReview {
  return reviewOn(
    session,
    (draftId) => url<ApproveEscalatedDraftData>('/admin/review-queue/{draftId}/approve', { path: { draftId } }),
    (draftId) => url<RejectEscalatedDraftData>('/admin/review-queue/{draftId}/reject', { path: { draftId } }),
  );
}
