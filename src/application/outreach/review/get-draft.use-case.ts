import { Injectable } from '@nestjs/common';
import { DraftNotFoundError } from '../../../domain/outreach/review';
import { OutreachDraftStore, type StoredDraft } from '../ports/outreach-draft-store.port';

@Injectable()
export class GetDraftUseCase {
  constructor(private readonly drafts: OutreachDraftStore) {}

  /**
   * One of the user's drafts, whatever became of it (a link to it, e.g. a notification's,
   * shows what it is now). Reading it decides nothing.
   * @throws DraftNotFoundError for no such draft, or another user's.
   */
  async execute(input: { userId: string; draftId: string }): Promise<StoredDraft> {
    const found = await this.drafts.get(input.userId, input.draftId);
    if (!found) throw new DraftNotFoundError();
    return found.draft;
  }
}
