import { Injectable } from '@nestjs/common';
import { CONFIRMATION_TTL_MS, interpretConfirmationReply, isExpired, type PendingAction } from '../../domain/agent/confirmation';
import type { DecisionType, TurnFinishReason, TurnStatus } from '../../domain/agent/decision';
import { TREATMENTS } from '../../domain/agent/failures';
import { costOf } from '../../domain/agent/pricing';
import type { AgentMessage } from '../../domain/agent/tools';
import { type ToolCallRecord, validMessage } from '../../domain/chat/conversation';
import { TokenBudget } from '../agent/ports/token-budget.port';
import { AgentLoop, type AgentRunInput, type AgentRunResult, type TurnObserver } from '../agent/agent-loop';
import { Clock } from '../shared/ports/clock.port';
import { IdGenerator } from '../shared/ports/id-generator.port';
import { Metrics } from '../shared/ports/metrics.port';
import { AgentSettings } from './agent-settings';
import { toAgentMessages } from './history';
import { ConversationStore } from './ports/conversation-store.port';
import { TODO_ASSISTANT_PROMPT } from './todo-assistant.prompt';

export interface ChatReply {
  readonly conversationId: string;
  readonly response: string;
  readonly decision: { readonly type: DecisionType; readonly id: string };
  readonly toolCalls: readonly ToolCallRecord[];
  readonly iterations: number;
  readonly status: TurnStatus;
  readonly finishReason: TurnFinishReason;
  readonly warning: string | null;
  /** The question put to the person, when the turn waits for their yes. */
  readonly confirmationPrompt: string | null;
  /** The friendly sentence of the failure, when the turn failed. */
  readonly error: string | null;
}

const CANCELLED = "Okay, I've cancelled that. Nothing was changed.";
const ALREADY_HANDLED = 'That request was already handled or has expired, so I did nothing.';
const EXPIRED =
  `That request expired: I wait ${CONFIRMATION_TTL_MS / 60_000} minutes for an answer, so nothing was changed. ` +
  'Ask me again if you still want it.';

/**
 * One chat turn, stateless: store the person's message before the model runs while loading
 * the conversation window and any pending confirmation, answer, store the answer with its
 * tool calls and the decision log. Nothing is kept in memory between turns.
 */
@Injectable()
export class SendChatMessageUseCase {
  constructor(
    private readonly store: ConversationStore,
    private readonly agent: AgentLoop,
    private readonly settings: AgentSettings,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly metrics: Metrics,
    private readonly budget: TokenBudget,
  ) {}

  async execute(
    input: { userId: string; conversationId?: string; message: string },
    observer?: TurnObserver,
  ): Promise<ChatReply> {
    const message = validMessage(input.message);
    const started = this.clock.now();
    const { limits } = this.settings;
    const decisionId = this.ids.next();
    const loaded = await this.store.startTurn({
      userId: input.userId,
      conversationId: input.conversationId ?? null,
      message,
      decisionId,
      model: this.agent.provider,
      window: limits.historyWindow,
      now: started,
    });
    const { conversationId } = loaded;

    const run: AgentRunInput = {
      systemPrompt: TODO_ASSISTANT_PROMPT,
      messages: [...toAgentMessages(loaded.history), { role: 'user', content: message } satisfies AgentMessage],
      context: { userId: input.userId, source: 'chat', conversationId, decisionId },
      limits,
      sampling: this.settings.sampling,
      budget: this.budget,
      observer,
    };
    const pending = loaded.pendingAction;
    const reply = pending ? interpretConfirmationReply(message) : 'other';
    const expired = pending !== null && isExpired(pending, started);
    let result: AgentRunResult;
    if (pending && reply !== 'other') {
      result = expired ? answer(EXPIRED, observer) : await this.answerConfirmation(run, pending, reply);
    } else {
      result = await this.agent.run(run);
    }

    const finished = this.clock.now();
    await this.store.finishTurn(
      {
        userId: input.userId,
        conversationId,
        assistantMessage: {
          content: result.text,
          toolCalls: result.toolCalls,
          decisionType: result.decisionType,
          status: result.status,
        },
        decision: {
          id: decisionId,
          userId: input.userId,
          conversationId,
          decisionType: result.decisionType,
          status: result.status,
          iterations: result.iterations,
          ...this.agent.provider,
          promptTokens: result.usage.promptTokens,
          completionTokens: result.usage.completionTokens,
          cost: this.settings.pricing && costOf(result.usage, this.settings.pricing),
          durationMs: finished.getTime() - started.getTime(),
          failureClass: result.failure?.class ?? null,
          providerRequestId: result.failure?.providerRequestId ?? null,
        },
        newPendingAction: result.confirmation && {
          userId: input.userId,
          conversationId,
          tool: result.confirmation.tool,
          arguments: result.confirmation.arguments,
          prompt: result.confirmation.prompt,
          expiresAt: new Date(finished.getTime() + CONFIRMATION_TTL_MS),
        },
        // A message that neither confirms nor cancels moves on: the old question lapses. An expired one is closed.
        droppedPendingActionId: pending && (reply === 'other' || expired) ? pending.id : null,
      },
      finished,
    );

    this.metrics.chatTurn(result.status, (finished.getTime() - started.getTime()) / 1000);
    if (result.failure?.class === 'BUDGET_SPENT') this.metrics.quotaRejection('chat_tokens', 'user');
    return {
      conversationId,
      response: result.text,
      decision: { type: result.decisionType, id: decisionId },
      toolCalls: result.toolCalls,
      iterations: result.iterations,
      status: result.status,
      finishReason: result.finishReason,
      warning: result.warning,
      confirmationPrompt: result.confirmation?.prompt ?? null,
      error: result.failure ? TREATMENTS[result.failure.class].userSees : null,
    };
  }

  private async answerConfirmation(
    run: AgentRunInput,
    pending: PendingAction,
    reply: 'confirm' | 'cancel',
  ): Promise<AgentRunResult> {
    const resolution = reply === 'confirm' ? 'confirmed' : 'cancelled';
    // Taking the action is atomic: of two racing "yes" messages, one runs it.
    const action = await this.store.takePendingAction(pending.id, run.context.userId, resolution, this.clock.now());
    if (action && reply === 'confirm') return this.agent.runConfirmed(run, action);
    return answer(action ? CANCELLED : ALREADY_HANDLED, run.observer);
  }
}

/** A turn answered without the model or a tool. */
function answer(text: string, observer: TurnObserver | undefined): AgentRunResult {
  observer?.text?.(text);
  return {
    text,
    status: 'completed',
    finishReason: 'stop',
    warning: null,
    decisionType: 'RESPOND_ONLY',
    iterations: 0,
    toolCalls: [],
    usage: { promptTokens: 0, completionTokens: 0 },
    failure: null,
    confirmation: null,
  };
}
