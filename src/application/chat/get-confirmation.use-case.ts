import { Injectable } from '@nestjs/common';
import { type ConfirmationState, confirmationState, confirmationStateSentence } from '../../domain/agent/confirmation';
import { ConfirmationNotFoundError } from '../../domain/chat/conversation';
import { Clock } from '../shared/ports/clock.port';
import { ConversationStore } from './ports/conversation-store.port';

/** What became of a question asked in a conversation, and how the person is told it. */
export interface ConfirmationOutcome {
  readonly id: string;
  readonly state: ConfirmationState;
  readonly expiresAt: Date;
  /** "The question expired unanswered after 10 minutes, so nothing was deleted." */
  readonly message: string;
}

@Injectable()
export class GetConfirmationUseCase {
  constructor(
    private readonly store: ConversationStore,
    private readonly clock: Clock,
  ) {}

  /**
   * One question of the user's conversation, whatever became of it: a link to it (the
   * console's, a notification's) shows it open, or says it was answered, set aside or expired
   * unanswered. Reading it answers nothing.
   * @throws ConfirmationNotFoundError when the conversation holds no such question of the user's.
   */
  async execute(input: { userId: string; conversationId: string; confirmationId: string }): Promise<ConfirmationOutcome> {
    const record = await this.store.confirmationRecord(input.userId, input.conversationId, input.confirmationId);
    if (!record) throw new ConfirmationNotFoundError();
    const state = confirmationState(record, this.clock.now());
    return { id: input.confirmationId, state, expiresAt: record.expiresAt, message: confirmationStateSentence(state, record) };
  }
}
