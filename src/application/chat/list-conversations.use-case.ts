import { Injectable } from '@nestjs/common';
import type { ConversationSummary } from '../../domain/chat/conversation';
import type { Page } from '../shared/page';
import { ConversationStore } from './ports/conversation-store.port';

@Injectable()
export class ListConversationsUseCase {
  constructor(private readonly store: ConversationStore) {}

  /** Newest first. */
  execute(input: { userId: string; limit: number; cursor: string | null }): Promise<Page<ConversationSummary>> {
    return this.store.listConversations(input.userId, input.limit, input.cursor);
  }
}
