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
import { CHAT_TURN } from '../../domain/policy/policy';
import type { AgentMessage } from '../../domain/agent/tools';
import { type ToolCallRecord, validMessage } from '../../domain/chat/conversation';
import { answer, judged, toolIntent, type TurnResult } from './turn-result';
import { TokenBudget } from '../agent/ports/token-budget.port';
import { AgentLoop, type AgentRunInput, type TurnObserver } from '../agent/agent-loop';
import { Clock } from '../shared/ports/clock.port';
import { IdGenerator } from '../shared/ports/id-generator.port';
import { Metrics } from '../shared/ports/metrics.port';
import { AgentSettings } from '../agent/agent-settings';
import { withSummary } from './conversation-summary.prompt';
import { PolicyGate } from '../policy/policy-gate';
import { TURN_CANCELLED, TurnAdmission } from './turn-admission';
import { turnWindow } from './turn-window';
import { ConversationStore, type TurnAccountCheck } from './ports/conversation-store.port';
import { todoAssistantPrompt } from './todo-assistant.prompt';
import { Logger } from '../shared/ports/logger.port';
import { genAiProviderName, NO_TRACER, Tracer } from '../shared/ports/tracer.port';
import { TodoTools } from '../todo/tools/todo-tools';
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
  private readonly admission: TurnAdmission;
  private readonly systemPrompt: string;

  constructor(
    private readonly store: ConversationStore,
    private readonly agent: AgentLoop,
    private readonly settings: AgentSettings,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly metrics: Metrics,
    private readonly budget: TokenBudget,
    policy: PolicyGate,
    logger: Logger,
    private readonly tracer: Tracer = NO_TRACER,
    private readonly tools: TodoTools = TodoTools.builtIn,
  ) {
    this.logger = logger.withContext(SendChatMessageUseCase.name);
    this.admission = new TurnAdmission(policy);
    this.systemPrompt = todoAssistantPrompt(tools.definitions);
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
    const pending = loaded.pendingConfirmation;
    const named = input.confirmationId ?? null;
    const reply = pending || named ? interpretConfirmationReply(message) : 'other';
    const expired = pending !== null && isExpired(pending, started);
    // Never taken as the answer to another question, nor passed to the model as a bare "yes".
    const stale = named !== null && reply !== 'other' && pending?.id !== named;
    const answersPending = !stale && pending !== null && reply !== 'other';
    const callsModel = !stale && (!answersPending || (!expired && reply === 'confirm'));
    // A yes to a question before the turn (CHAT_TURN) answers the message it held.
    const asked = answersPending && pending.tool === CHAT_TURN && typeof pending.arguments.message === 'string';
    const said = asked ? (pending.arguments.message as string) : message;
    const admitted = callsModel ? await this.admission.admit(input.userId, said, answersPending) : null;

    const budget = this.budget;
    const deps = { agent: this.agent, ids: this.ids, tools: this.tools, systemPrompt: this.systemPrompt };
    const window = await turnWindow(
      deps,
      loaded,
      said,
      { context, limits, sampling: this.settings.sampling, budget },
      callsModel && !admitted,
    );
    const messages = [...window.messages, { role: 'user', content: said } satisfies AgentMessage];
    // Listed once and cached; a gateway that cannot list them leaves the other rules to judge.
    const vocabulary = { toolNames: [...(await this.agent.toolNames().catch(() => [])), BULK_CHANGE], echoes: echoesOf(messages) };
    const checking = checkedObserver(observer, vocabulary);
    const run: AgentRunInput = {
      systemPrompt: withSummary(this.systemPrompt, window.summary?.content ?? null),
      messages,
      context,
      limits,
      sampling,
      budget,
      observer: checking?.observer ?? observer,
      supportContact: this.settings.supportContact,
    };
    let result: TurnResult;
    if (stale) result = answer(ALREADY_HANDLED, 'REFUSED', run.observer);
    else if (admitted) {
      run.observer?.text?.(admitted.text);
      result = admitted;
    } else if (answersPending) {
      // An answer after the question expired: nobody said no, the time ran out (EXPIRED, never REFUSED).
      result = expired ? answer(EXPIRED_CONFIRMATION_REPLY, 'EXPIRED', run.observer) : await this.answerConfirmation(run, pending, reply);
    } else result = await this.agent.run(run);
    result = this.checked(result, run, vocabulary, decisionId, checking?.gate ?? null);
    // A yes to the open question wanted what it asks, whether it ran or not.
    const confirmedTool = pending && reply === 'confirm' && (named === null || named === pending.id) ? pending.tool : null;

    const finished = this.clock.now();
    const usage = {
      promptTokens: result.usage.promptTokens + window.usage.promptTokens,
      completionTokens: result.usage.completionTokens + window.usage.completionTokens,
    };
    const prices = this.settings.prices;
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
          cost: prices && result.cost + window.cost,
          durationMs: finished.getTime() - started.getTime(),
          failureClass: result.failure?.class ?? null,
          providerRequestId: result.failure?.providerRequestId ?? null,
          context: window.record,
          intentType: intentOf(
            [...result.toolCalls.map((call) => call.tool), result.confirmation?.tool, confirmedTool].map((tool) =>
              toolIntent(tool, this.tools),
            ),
          ),
          outcomeCategory:
            result.outcome ?? outcomeOf({ ...result, failure: result.failure?.class ?? null, calls: judged(result.toolCalls, this.tools) }),
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
    if (result.finishReason === 'budget_spent') {
      this.metrics.quotaRejection('chat_budget', 'user', result.failure?.class === 'BUDGET_SPENT' ? 'day' : 'month');
    }
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
      bounded.model(toolCallsInWords(result.toolCalls, (call) => this.tools.sentence(call), TODO_TOOL_ERRORS));
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
    if (!action) return answer(ALREADY_HANDLED, 'REFUSED', run.observer);
    if (reply === 'cancel') return answer(action.tool === CHAT_TURN ? TURN_CANCELLED : CANCELLED, 'SUCCEEDED', run.observer);
    // The turn the person was asked about goes on: the model answers the message the question held (run.messages ends with it).
    if (action.tool === CHAT_TURN) return this.agent.run(run);
    return this.agent.runConfirmed(run, action);
  }
}
