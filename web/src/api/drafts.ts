/** Outreach drafts waiting for the person's review. */
import type {
  ApproveDraftData,
  ApproveDraftResponse,
  DraftPageDto,
  DraftResponseDto,
  ListDraftsData,
  ListDraftsResponse,
  RejectDraftData,
  RejectDraftResponse,
} from '../generated/types.gen';
import { json, type Session, url } from './http';

export type Draft = DraftResponseDto;
export type DraftEdits = NonNullable<ApproveDraftData['body']['edits']>;

/** The owner's drafts waiting for review, newest first (one page of 100). */
export async function listDrafts(session: Session): Promise<DraftPageDto> {
  const path = url<ListDraftsData>('/api/{userId}/outreach/drafts', {
    path: { userId: session.userId },
    query: { status: 'awaiting_review', limit: 100 },
  });
  return json<ListDraftsResponse>('GET', path, session);
}

const draftPath = (session: Session, draftId: string) => ({ userId: session.userId, draftId });

/** Approves exactly the draft the person read (its hash), with their edits if any. */
export async function approveDraft(session: Session, draft: Draft, edits?: DraftEdits): Promise<Draft> {
  const body: ApproveDraftData['body'] = { argumentsHash: draft.argumentsHash, ...(edits && { edits }) };
  const path = url<ApproveDraftData>('/api/{userId}/outreach/drafts/{draftId}/approve', { path: draftPath(session, draft.id) });
  return json<ApproveDraftResponse>('POST', path, session, body);
}

export async function rejectDraft(session: Session, draft: Draft): Promise<Draft> {
  const body: RejectDraftData['body'] = { argumentsHash: draft.argumentsHash };
  const path = url<RejectDraftData>('/api/{userId}/outreach/drafts/{draftId}/reject', { path: draftPath(session, draft.id) });
  return json<RejectDraftResponse>('POST', path, session, body);
}
