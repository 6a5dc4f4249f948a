import { CONFIRMATION_TTL_MS, type PendingConfirmation } from '../../domain/agent/confirmation';
import { turnFailure } from '../../domain/agent/failures';
import { intentOf, outcomeOf } from '../../domain/agent/turn-outcome';
import type { TurnRoute } from '../../domain/chat/turn-route';
import type { Metrics } from '../shared/ports/metrics.port';
import type { ChatReply, TurnDeps } from './chat-turn';
import type { DecisionLogEntry } from './ports/conversation-store.port';
import type { OpenedTurn } from './turn-opening';
import { judged, toolIntent, type TurnResult } from './turn-result';
import type { TurnWindow } from './turn-window';

/**
 * The close of a chat turn: its one closing statement (ConversationStore.finishTurn: the
 * answer, the decision row, a new summary, the question it asks and the one it drops), its
 * metrics, and the reply the caller gets.
 */
export class TurnClosing {
  constructor(
    private readonly deps: TurnDeps,
    private readonly metrics: Metrics,
  ) {}

  async close(opened: OpenedTurn, route: TurnRoute, window: TurnWindow, result: TurnResult): Promise<ChatReply> {
    const finished = this.deps.clock.now();
    const newPendingConfirmation = this.newConfirmation(opened, result, finished);
    await this.deps.store.finishTurn(
      {
        userId: opened.userId,
        conversationId: opened.conversationId,
        assistantMessage: {
          content: result.text,
          toolCalls: result.toolCalls,
          decisionType: result.decisionType,
          status: result.status,
        },
        decision: this.decision(opened, route, window, result, finished),
        newPendingConfirmation,
        // A message that neither confirms nor cancels moves on: the old question lapses. An expired one is closed.
        droppedPendingConfirmationId: route.dropped,
        newSummary: window.newSummary,
      },
      finished,
    );
    this.metrics.chatTurn(result.status, (finished.getTime() - opened.started.getTime()) / 1000);
    if (result.finishReason === 'budget_spent') {
      this.metrics.quotaRejection('chat_budget', 'user', result.failure?.class === 'BUDGET_SPENT' ? 'day' : 'month');
    }
    return this.reply(opened, result, newPendingConfirmation);
  }

  /** The question the turn asks, stored to wait for the person's yes until it expires. */
  private newConfirmation(opened: OpenedTurn, result: TurnResult, finished: Date): PendingConfirmation | null {
    return (
      result.confirmation && {
        id: this.deps.ids.next(),
        userId: opened.userId,
        conversationId: opened.conversationId,
        tool: result.confirmation.tool,
        arguments: result.confirmation.arguments,
        prompt: result.confirmation.prompt,
        expiresAt: new Date(finished.getTime() + CONFIRMATION_TTL_MS),
      }
    );
  }

  /** The turn's decision row, as it is completed. */
  private decision(opened: OpenedTurn, route: TurnRoute, window: TurnWindow, result: TurnResult, finished: Date): DecisionLogEntry {
    const tools = this.deps.toolbox.definitions;
    // A yes to the open question wanted what it asks, whether it ran or not.
    const intents = [...result.toolCalls.map((call) => call.tool), result.confirmation?.tool, route.confirmedTool];
    return {
      id: opened.decisionId,
      userId: opened.userId,
      conversationId: opened.conversationId,
      decisionType: result.decisionType,
      clarificationQuestion: result.clarificationQuestion,
      status: result.status,
      iterations: result.iterations,
      ...this.deps.agent.provider,
      promptTokens: result.usage.promptTokens + window.usage.promptTokens,
      completionTokens: result.usage.completionTokens + window.usage.completionTokens,
      cost: this.deps.settings.prices && result.cost + window.cost,
      durationMs: finished.getTime() - opened.started.getTime(),
      failureClass: result.failure?.class ?? null,
      providerRequestId: result.failure?.providerRequestId ?? null,
      context: window.record,
      intentType: intentOf(intents.map((tool) => toolIntent(tool, tools))),
      outcomeCategory:
        result.outcome ?? outcomeOf({ ...result, failure: result.failure?.class ?? null, calls: judged(result.toolCalls, tools) }),
      sampling: opened.sampling,
    };
  }

  private reply(opened: OpenedTurn, result: TurnResult, pendingConfirmation: PendingConfirmation | null): ChatReply {
    return {
      conversationId: opened.conversationId,
      response: result.text,
      decision: { type: result.decisionType, id: opened.decisionId, clarificationQuestion: result.clarificationQuestion },
      messages: [
        { role: 'user', content: opened.message },
        { role: 'assistant', content: result.text },
      ],
      toolCalls: result.toolCalls,
      iterations: result.iterations,
      status: result.status,
      finishReason: result.finishReason,
      warning: result.warning,
      pendingConfirmation,
      success: result.failure === null,
      error: result.failure && turnFailure(result.failure.class, this.deps.settings.supportContact ?? null),
    };
  }
}
