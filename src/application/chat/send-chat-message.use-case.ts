import { Injectable } from '@nestjs/common';
import { CONFIRMATION_TTL_MS, interpretConfirmationReply, isExpired, type PendingConfirmation } from '../../domain/agent/confirmation';
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
import { transcriptToSummarize, windowTurns } from './history';
import { CONVERSATION_SUMMARY_PROMPT, SUMMARY_MAX_CHARS, withSummary } from './conversation-summary.prompt';
import { estimatedFixedTokens, estimatedTokens, planWindow } from '../../domain/chat/context-window';
import type { TokenUsage } from '../agent/ports/language-model.port';
import { type ConversationDigest, ConversationStore, type TurnContext, type TurnContextRecord } from './ports/conversation-store.port';
import { TODO_ASSISTANT_PROMPT } from './todo-assistant.prompt';
import type { AccountCheck } from '../identity/ports/access-token-service.port';

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

  /** `account`: the session's account check the bearer guard left to the turn (StartTurnInput.account). */
  async execute(
    input: { userId: string; conversationId?: string; message: string; account?: AccountCheck | null },
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
      turnsPerMinute: this.settings.turnsPerMinute,
      account: input.account ?? null,
      now: started,
    });
    const { conversationId } = loaded;
    const context = { userId: input.userId, source: 'chat' as const, conversationId, decisionId };
    const window = await this.window(loaded, message, { context, limits, sampling: this.settings.sampling, budget: this.budget });

    const run: AgentRunInput = {
      systemPrompt: withSummary(TODO_ASSISTANT_PROMPT, window.summary?.content ?? null),
      messages: [...window.messages, { role: 'user', content: message } satisfies AgentMessage],
      context,
      limits,
      sampling: this.settings.sampling,
      budget: this.budget,
      observer,
    };
    const pending = loaded.pendingConfirmation;
    const reply = pending ? interpretConfirmationReply(message) : 'other';
    const expired = pending !== null && isExpired(pending, started);
    let result: AgentRunResult;
    if (pending && reply !== 'other') {
      result = expired ? answer(EXPIRED, observer) : await this.answerConfirmation(run, pending, reply);
    } else {
      result = await this.agent.run(run);
    }

    const finished = this.clock.now();
    const usage = {
      promptTokens: result.usage.promptTokens + window.usage.promptTokens,
      completionTokens: result.usage.completionTokens + window.usage.completionTokens,
    };
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
          promptTokens: usage.promptTokens,
          completionTokens: usage.completionTokens,
          cost: this.settings.pricing && costOf(usage, this.settings.pricing),
          durationMs: finished.getTime() - started.getTime(),
          failureClass: result.failure?.class ?? null,
          providerRequestId: result.failure?.providerRequestId ?? null,
          context: window.record,
        },
        newPendingConfirmation: result.confirmation && {
          userId: input.userId,
          conversationId,
          tool: result.confirmation.tool,
          arguments: result.confirmation.arguments,
          prompt: result.confirmation.prompt,
          expiresAt: new Date(finished.getTime() + CONFIRMATION_TTL_MS),
        },
        // A message that neither confirms nor cancels moves on: the old question lapses. An expired one is closed.
        droppedPendingConfirmationId: pending && (reply === 'other' || expired) ? pending.id : null,
        newSummary: window.newSummary,
      },
      finished,
    );

    this.metrics.chatTurn(result.status, (finished.getTime() - started.getTime()) / 1000);
    if (result.failure?.class === 'BUDGET_SPENT') this.metrics.quotaRejection('chat_budget', 'user', 'day');
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

  /**
   * What of the conversation the model reads this turn: the latest summary and the newest
   * exchanges within AGENT_CONTEXT_TOKENS. When the exchanges since the summary no longer
   * fit, the older ones are summarised first (by the model, within the turn's deadline and
   * budget) and the summary is stored with the turn; if that fails, the turn goes on with
   * the newest exchanges and the next turn tries again.
   */
  private async window(
    loaded: TurnContext,
    message: string,
    run: Pick<AgentRunInput, 'context' | 'limits' | 'sampling' | 'budget'>,
  ): Promise<{
    messages: AgentMessage[];
    summary: ConversationDigest | null;
    newSummary: ConversationDigest | null;
    record: TurnContextRecord;
    usage: TokenUsage;
  }> {
    const { limits } = run;
    const turns = windowTurns(loaded.history);
    // A third of the window is left for the tools' definitions and the turn's own calls.
    const room = (summary: string | null) =>
      Math.floor((limits.contextTokens * 2) / 3) -
      estimatedFixedTokens(withSummary(TODO_ASSISTANT_PROMPT, summary), []) -
      estimatedTokens([{ role: 'user', content: message }]);
    let summary = loaded.summary;
    let newSummary: ConversationDigest | null = null;
    let usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
    let plan = planWindow(turns, room(summary?.content ?? null), limits.historyWindow);
    if (plan.toSummarize.length > 0) {
      const made = await this.agent.complete(run, {
        systemPrompt: CONVERSATION_SUMMARY_PROMPT,
        text: transcriptToSummarize(summary?.content ?? null, plan.toSummarize),
        maxChars: SUMMARY_MAX_CHARS,
        maxTokens: Math.ceil(SUMMARY_MAX_CHARS / 2),
      });
      if (made) {
        usage = made.usage;
        newSummary = {
          id: this.ids.next(),
          content: made.text,
          lastSeq: plan.toSummarize[plan.toSummarize.length - 1].lastSeq,
          messages: (summary?.messages ?? 0) + plan.toSummarize.reduce((sum, turn) => sum + turn.storedMessages, 0),
        };
        summary = newSummary;
        // The new summary may be longer than the old: the kept exchanges must still fit.
        plan = planWindow(plan.kept, room(summary.content), limits.historyWindow);
      }
    }
    const kept = plan.kept;
    const messages = kept.flatMap((turn) => turn.messages);
    return {
      messages,
      summary,
      newSummary,
      usage,
      record: {
        summaryId: summary?.id ?? null,
        firstSeq: kept[0]?.firstSeq ?? null,
        lastSeq: kept[kept.length - 1]?.lastSeq ?? null,
        messages: kept.reduce((sum, turn) => sum + turn.storedMessages, 0),
        estimatedTokens: estimatedFixedTokens(withSummary(TODO_ASSISTANT_PROMPT, summary?.content ?? null), []) + estimatedTokens(messages),
      },
    };
  }

  private async answerConfirmation(run: AgentRunInput, pending: PendingConfirmation, reply: 'confirm' | 'cancel'): Promise<AgentRunResult> {
    const resolution = reply === 'confirm' ? 'confirmed' : 'cancelled';
    // Taking the action is atomic: of two racing "yes" messages, one runs it.
    const action = await this.store.takePendingConfirmation(pending.id, run.context.userId, resolution, this.clock.now());
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
