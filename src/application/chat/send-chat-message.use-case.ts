import { Injectable } from '@nestjs/common';
import {
  BULK_CHANGE,
  CONFIRMATION_TTL_MS,
  EXPIRED_CONFIRMATION_REPLY,
  interpretConfirmationReply,
  isExpired,
  type PendingConfirmation,
} from '../../domain/agent/confirmation';
import { decisionOf, type DecisionType, type TurnFinishReason, type TurnStatus } from '../../domain/agent/decision';
import { type TurnFailure, turnFailure, WARNINGS } from '../../domain/agent/failures';
import { requestedSampling } from '../../domain/agent/limits';
import { intentOf, outcomeOf } from '../../domain/agent/turn-outcome';
import { Reply } from '../../domain/agent/reply';
import { checkedReply, dataEchoes, type ReplyVocabulary, toolCallsInWords } from '../../domain/agent/reply-check';
import type { ReplyGate } from '../../domain/agent/reply-gate';
import { checkedObserver, echoesOf } from './reply-checking';
import { costOf } from '../../domain/agent/pricing';
import type { AgentMessage } from '../../domain/agent/tools';
import { type ToolCallRecord, validMessage } from '../../domain/chat/conversation';
import { answer, judged, toolIntent, type TurnResult } from './turn-result';
import { TokenBudget } from '../agent/ports/token-budget.port';
import { AgentLoop, type AgentRunInput, type TurnObserver } from '../agent/agent-loop';
import { Clock } from '../shared/ports/clock.port';
import { IdGenerator } from '../shared/ports/id-generator.port';
import { Metrics } from '../shared/ports/metrics.port';
import { AgentSettings } from '../agent/agent-settings';
import { transcriptToSummarize, windowTurns } from './history';
import { CONVERSATION_SUMMARY_PROMPT, SUMMARY_MAX_CHARS, withSummary } from './conversation-summary.prompt';
import { estimatedFixedTokens, estimatedTokens, planWindow } from '../../domain/chat/context-window';
import type { TokenUsage } from '../agent/ports/language-model.port';
import {
  type ConversationDigest,
  ConversationStore,
  type TurnAccountCheck,
  type TurnContext,
  type TurnContextRecord,
} from './ports/conversation-store.port';
import { TODO_ASSISTANT_PROMPT } from './todo-assistant.prompt';
import { Logger } from '../shared/ports/logger.port';
import { genAiProviderName, NO_TRACER, Tracer } from '../shared/ports/tracer.port';
import { toolResultSentence } from '../todo/tools/tool-result-sentences';
import { TODO_TOOL_ERRORS } from '../../domain/todo/tool-errors';

export interface ChatReply {
  readonly conversationId: string;
  readonly response: string;
  /** The turn's decision: its type, its decision log's id and, for ASK_CLARIFICATION, the question asked. */
  readonly decision: { readonly type: DecisionType; readonly id: string; readonly clarificationQuestion: string | null };
  /** The turn's own messages, oldest first: the person's, as stored, and the answer. */
  readonly messages: readonly TurnMessage[];
  readonly toolCalls: readonly ToolCallRecord[];
  readonly iterations: number;
  readonly status: TurnStatus;
  readonly finishReason: TurnFinishReason;
  readonly warning: string | null;
  /** What the turn waits for the person's yes to run, as stored (its question is `prompt`); null otherwise. */
  readonly pendingConfirmation: PendingConfirmation | null;
  /** False when the turn failed (status `error`): then `error` says how, as the person is told it. */
  readonly success: boolean;
  readonly error: TurnFailure | null;
}

/** One message of a turn, in the agent service contract's shape. */
export interface TurnMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

export interface ChatTurnInput {
  readonly userId: string;
  readonly conversationId?: string;
  readonly message: string;
  /** What the caller did about the signed-in account (StartTurnInput.account). */
  readonly account: TurnAccountCheck;
  readonly confirmationId?: string;
  /** The request's own sampling for the turn's model calls, within the server's bounds (requestedSampling). */
  readonly temperature?: number;
  readonly maxTokens?: number;
}

/** `gen_ai.agent.name` of a chat turn's spans. */
const TODO_ASSISTANT = 'todo_assistant';

const CANCELLED = "Okay, I've cancelled that. Nothing was changed.";
const ALREADY_HANDLED = 'That request was already handled or has expired, so I did nothing.';

/**
 * One chat turn, stateless: store the person's message before the model runs while loading
 * the conversation window and any pending confirmation, answer, store the answer with its
 * tool calls and the decision log. Nothing is kept in memory between turns.
 */
@Injectable()
export class SendChatMessageUseCase {
  private readonly logger: Logger;

  constructor(
    private readonly store: ConversationStore,
    private readonly agent: AgentLoop,
    private readonly settings: AgentSettings,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly metrics: Metrics,
    private readonly budget: TokenBudget,
    logger: Logger,
    private readonly tracer: Tracer = NO_TRACER,
  ) {
    this.logger = logger.withContext(SendChatMessageUseCase.name);
  }

  /**
   * `confirmationId`: the pending confirmation a "yes" or "no" answers, from a client that showed it as
   * data; such an answer resolves that one or, when it is no longer the open one, nothing.
   */
  execute(input: ChatTurnInput, observer?: TurnObserver): Promise<ChatReply> {
    const decisionId = this.ids.next();
    const { provider, model } = this.agent.provider;
    const attributes = {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': TODO_ASSISTANT,
      'gen_ai.provider.name': genAiProviderName(provider),
      'gen_ai.request.model': model,
      'gen_ai.conversation.id': input.conversationId,
      'bridle.decision.id': decisionId,
    };
    return this.tracer.inSpan(`invoke_agent ${TODO_ASSISTANT}`, { attributes }, async (span) => {
      const reply = await this.turn(input, decisionId, observer);
      span.set({ 'gen_ai.conversation.id': reply.conversationId, 'bridle.turn.status': reply.status });
      if (reply.status === 'error') span.fail(reply.finishReason);
      return reply;
    });
  }

  private async turn(input: ChatTurnInput, decisionId: string, observer?: TurnObserver): Promise<ChatReply> {
    const message = validMessage(input.message);
    const sampling = requestedSampling(this.settings.sampling, input);
    const started = this.clock.now();
    const { limits } = this.settings;
    const loaded = await this.store.startTurn({
      userId: input.userId,
      conversationId: input.conversationId ?? null,
      message,
      decisionId,
      model: this.agent.provider,
      window: limits.historyWindow,
      turnsPerMinute: this.settings.turnsPerMinute,
      account: input.account,
      now: started,
    });
    const { conversationId } = loaded;
    const context = { userId: input.userId, source: 'chat' as const, conversationId, decisionId };
    const window = await this.window(loaded, message, { context, limits, sampling: this.settings.sampling, budget: this.budget });

    const messages = [...window.messages, { role: 'user', content: message } satisfies AgentMessage];
    // Listed once and cached; a gateway that cannot list them leaves the other rules to judge.
    const vocabulary = { toolNames: [...(await this.agent.toolNames().catch(() => [])), BULK_CHANGE], echoes: echoesOf(messages) };
    const checking = checkedObserver(observer, vocabulary);
    const run: AgentRunInput = {
      systemPrompt: withSummary(TODO_ASSISTANT_PROMPT, window.summary?.content ?? null),
      messages,
      context,
      limits,
      sampling,
      budget: this.budget,
      observer: checking?.observer ?? observer,
      supportContact: this.settings.supportContact,
    };
    const pending = loaded.pendingConfirmation;
    const named = input.confirmationId ?? null;
    const reply = pending || named ? interpretConfirmationReply(message) : 'other';
    const expired = pending !== null && isExpired(pending, started);
    let result: TurnResult;
    if (named !== null && reply !== 'other' && pending?.id !== named) {
      // Never taken as the answer to another question, nor passed to the model as a bare "yes".
      result = answer(ALREADY_HANDLED, 'REFUSED', run.observer);
    } else if (pending && reply !== 'other') {
      // An answer after the question expired: nobody said no, the time ran out (EXPIRED, never REFUSED).
      result = expired ? answer(EXPIRED_CONFIRMATION_REPLY, 'EXPIRED', run.observer) : await this.answerConfirmation(run, pending, reply);
    } else {
      result = await this.agent.run(run);
    }
    result = this.checked(result, run, vocabulary, decisionId, checking?.gate ?? null);
    // A yes to the open question wanted what it asks, whether it ran or not.
    const confirmedTool = pending && reply === 'confirm' && (named === null || named === pending.id) ? pending.tool : null;

    const finished = this.clock.now();
    const usage = {
      promptTokens: result.usage.promptTokens + window.usage.promptTokens,
      completionTokens: result.usage.completionTokens + window.usage.completionTokens,
    };
    const newPendingConfirmation: PendingConfirmation | null = result.confirmation && {
      id: this.ids.next(),
      userId: input.userId,
      conversationId,
      tool: result.confirmation.tool,
      arguments: result.confirmation.arguments,
      prompt: result.confirmation.prompt,
      expiresAt: new Date(finished.getTime() + CONFIRMATION_TTL_MS),
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
          clarificationQuestion: result.clarificationQuestion,
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
          intentType: intentOf([...result.toolCalls.map((call) => call.tool), result.confirmation?.tool, confirmedTool].map(toolIntent)),
          outcomeCategory:
            result.outcome ?? outcomeOf({ ...result, failure: result.failure?.class ?? null, calls: judged(result.toolCalls) }),
          sampling,
        },
        newPendingConfirmation,
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
      decision: { type: result.decisionType, id: decisionId, clarificationQuestion: result.clarificationQuestion },
      messages: [
        { role: 'user', content: message },
        { role: 'assistant', content: result.text },
      ],
      toolCalls: result.toolCalls,
      iterations: result.iterations,
      status: result.status,
      finishReason: result.finishReason,
      warning: result.warning,
      pendingConfirmation: newPendingConfirmation,
      success: result.failure === null,
      error: result.failure && turnFailure(result.failure.class, this.settings.supportContact ?? null),
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

  /**
   * The one place a turn's reply is settled, before it is stored or shown: the model's words
   * are checked (reply-check.ts). Unfit words (JSON, an internal code, schema or validator
   * text, an identifier, a stack trace, a tool's name) give way to the server's own sentences
   * of the turn, or else to what its tool calls did in words (toolCallsInWords); a listener,
   * whose stream let out only words that passed (`gate`), is told the replacement (`replace`),
   * and the line logged names the rule, never the words.
   */
  private checked(
    result: TurnResult,
    run: AgentRunInput,
    vocabulary: ReplyVocabulary,
    decisionId: string,
    gate: ReplyGate | null,
  ): TurnResult {
    // What the turn's own tools returned may be said back too.
    const echoes = [...vocabulary.echoes, ...result.toolCalls.flatMap((call) => (call.success ? dataEchoes(call.result ?? null) : []))];
    const checked = checkedReply(result, { ...vocabulary, echoes }, () => {
      const bounded = new Reply(run.limits.maxReplyChars);
      bounded.model(toolCallsInWords(result.toolCalls, toolResultSentence, TODO_TOOL_ERRORS));
      return bounded.value;
    });
    gate?.finish(checked.problem === null);
    if (!checked.problem) return result;
    this.logger.warn({
      msg: "model's reply replaced",
      decisionId,
      rule: checked.problem.rule,
      found: checked.problem.found,
      modelChars: result.modelWords.length,
    });
    run.observer?.replace?.(checked.text);
    // What the person reads now is what the turn asked, if anything.
    const decision = decisionOf(result.facts, checked.text);
    return {
      ...result,
      decisionType: decision.type,
      clarificationQuestion: decision.clarificationQuestion,
      text: checked.text,
      modelWords: '',
      serverSentences: [checked.text],
      warning: result.warning === WARNINGS.SHORTENED ? null : result.warning,
    };
  }

  private async answerConfirmation(run: AgentRunInput, pending: PendingConfirmation, reply: 'confirm' | 'cancel'): Promise<TurnResult> {
    const resolution = reply === 'confirm' ? 'confirmed' : 'cancelled';
    // Taking the action is atomic: of two racing "yes" messages, one runs it.
    const action = await this.store.takePendingConfirmation(pending.id, run.context.userId, resolution, this.clock.now());
    if (action && reply === 'confirm') return this.agent.runConfirmed(run, action);
    return action ? answer(CANCELLED, 'SUCCEEDED', run.observer) : answer(ALREADY_HANDLED, 'REFUSED', run.observer);
  }
}
