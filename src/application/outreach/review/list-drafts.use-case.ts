import { Injectable } from '@nestjs/common';
import type { DraftStatus } from '../../../domain/outreach/review';
import type { Page } from '../../shared/page';
import { OutreachDraftStore, type StoredDraft } from '../ports/outreach-draft-store.port';

@Injectable()
export class ListDraftsUseCase {
  constructor(private readonly drafts: OutreachDraftStore) {}

  /** The user's drafts across campaigns, newest first; of one status if given. */
  execute(input: { userId: string; status: DraftStatus | null; limit: number; cursor: string | null }): Promise<Page<StoredDraft>> {
    return this.drafts.list(input.userId, input.status, input.limit, input.cursor);
  }
}
