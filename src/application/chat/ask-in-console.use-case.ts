import { Injectable } from '@nestjs/common';
import {
  CONFIRMATION_TTL_MS,
  consoleConversationLink,
  confirmInConsoleMessage,
  withoutChatReplyHint,
} from '../../domain/agent/confirmation';
import type { ToolArguments } from '../../domain/agent/tool-call-validation';
import { conversationTitle } from '../../domain/chat/conversation';
import { ToolCallSettings } from '../agent/tool-call-settings';
import { Clock } from '../shared/ports/clock.port';
import { IdGenerator } from '../shared/ports/id-generator.port';
import { ConversationStore } from './ports/conversation-store.port';

/** A destructive call's question, as its dry run resolved it: what "yes" runs, and the server's own words for it. */
export interface ParkedQuestion {
  readonly tool: string;
  readonly arguments: ToolArguments;
  readonly prompt: string;
}

/**
 * For a channel that cannot ask the person (an MCP client without elicitation): the server
 * asks in the console instead. The dry run's question becomes a conversation of its own with
 * that question open, bound to exactly the resolved call as a chat confirmation is (same
 * expiry, same hash check, same "yes" that runs it once), and the client is told where it waits.
 */
@Injectable()
export class AskInConsoleUseCase {
  constructor(
    private readonly store: ConversationStore,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly settings: ToolCallSettings,
  ) {}

  /** @returns the sentence for the caller (where and until when), and the conversation it opened. */
  async ask(userId: string, question: ParkedQuestion): Promise<{ conversationId: string; confirmationId: string; message: string }> {
    const now = this.clock.now();
    const asked = withoutChatReplyHint(question.prompt);
    const title = conversationTitle(`Confirm: ${asked}`);
    const confirmationId = this.ids.next();
    const expiresAt = new Date(now.getTime() + CONFIRMATION_TTL_MS);
    const conversationId = await this.store.openWithQuestion({
      userId,
      title,
      question: { id: confirmationId, tool: question.tool, arguments: question.arguments, prompt: question.prompt, expiresAt },
      now,
    });
    const link = this.settings.consoleUrl ? consoleConversationLink(this.settings.consoleUrl, conversationId, confirmationId) : null;
    return { conversationId, confirmationId, message: confirmInConsoleMessage({ asked, title, link, expiresAt }) };
  }
}
