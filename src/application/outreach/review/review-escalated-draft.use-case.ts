import { Injectable } from '@nestjs/common';
import { AdminReadRecorder } from '../../audit/admin-read-recorder';
import { DraftNotFoundError, type DraftEdits } from '../../../domain/outreach/review';
import type { Page } from '../../shared/page';
import { type EscalatedDraft, OutreachDraftStore, type StoredDraft } from '../ports/outreach-draft-store.port';
import { ReviewDraftUseCase } from './review-draft.use-case';

export interface EscalatedDraftRef {
  readonly adminId: string;
  readonly draftId: string;
  readonly argumentsHash: string;
}

/**
 * The admins' review queue: the drafts a policy rule escalated because their owner did not
 * decide them in time. An admin decides one exactly as its owner would (ReviewDraftUseCase,
 * the same checks and conditional updates), in the owner's stead and named as the reviewer.
 * A draft that was never escalated is not found: an admin never decides it. Reading the queue
 * shows other people's messages: each read is an audit row (admin.review_queue.list), as a
 * read of the audit trail is.
 */
@Injectable()
export class ReviewEscalatedDraftUseCase {
  constructor(
    private readonly drafts: OutreachDraftStore,
    private readonly review: ReviewDraftUseCase,
    private readonly recorder: AdminReadRecorder,
  ) {}

  /** The escalated drafts still awaiting review, of every owner, the latest escalated first; the read is audited. */
  list(input: { adminId: string; limit: number; cursor: string | null }): Promise<Page<EscalatedDraft>> {
    const { adminId, limit, cursor } = input;
    return this.recorder.around(
      { adminId, tool: 'admin.review_queue.list', arguments: { limit, cursor } },
      () => this.drafts.listEscalated(limit, cursor),
      (page) => ({ items: page.items.length, more: page.nextCursor !== null }),
    );
  }

  async approve(input: EscalatedDraftRef & { edits?: DraftEdits }): Promise<StoredDraft> {
    const userId = await this.ownerOf(input.draftId);
    return this.review.approve({ ...input, userId });
  }

  async reject(input: EscalatedDraftRef): Promise<StoredDraft> {
    const userId = await this.ownerOf(input.draftId);
    return this.review.reject({ ...input, userId });
  }

  private async ownerOf(draftId: string): Promise<string> {
    const owner = await this.drafts.escalatedOwner(draftId);
    if (owner === null) throw new DraftNotFoundError();
    return owner;
  }
}
