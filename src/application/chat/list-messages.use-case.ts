import { Injectable } from '@nestjs/common';
import { ConversationNotFoundError, type StoredMessage } from '../../domain/chat/conversation';
import type { Page } from '../shared/page';
import { ConversationStore } from './ports/conversation-store.port';

@Injectable()
export class ListMessagesUseCase {
  constructor(private readonly store: ConversationStore) {}

  /** The newest `limit` messages before the cursor, oldest first; the cursor pages back. */
  async execute(input: { userId: string; conversationId: string; limit: number; cursor: string | null }): Promise<Page<StoredMessage>> {
    const page = await this.store.listMessages(input.userId, input.conversationId, input.limit, input.cursor);
    if (!page) throw new ConversationNotFoundError();
    return page;
  }
}
