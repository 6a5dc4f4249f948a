import { Injectable } from '@nestjs/common';
import type { PendingConfirmation } from '../../domain/agent/confirmation';
import { ConversationNotFoundError, type StoredMessage } from '../../domain/chat/conversation';
import { Clock } from '../shared/ports/clock.port';
import type { Page } from '../shared/page';
import { ConversationStore } from './ports/conversation-store.port';

/** A page of a conversation's messages, and the question it still waits on. */
export interface MessagePage extends Page<StoredMessage> {
  /** The conversation's open, unexpired pending confirmation: a client redraws the question from it. */
  readonly pendingConfirmation: PendingConfirmation | null;
}

@Injectable()
export class ListMessagesUseCase {
  constructor(
    private readonly store: ConversationStore,
    private readonly clock: Clock,
  ) {}

  /** The newest `limit` messages before the cursor, oldest first; the cursor pages back. */
  async execute(input: { userId: string; conversationId: string; limit: number; cursor: string | null }): Promise<MessagePage> {
    const page = await this.store.listMessages(input.userId, input.conversationId, input.limit, input.cursor);
    if (!page) throw new ConversationNotFoundError();
    const pendingConfirmation = await this.store.openPendingConfirmation(input.userId, input.conversationId, this.clock.now());
    return { ...page, pendingConfirmation };
  }
}
