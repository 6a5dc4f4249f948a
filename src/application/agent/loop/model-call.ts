import { classifyModelFailure, isBudgetSpent, TREATMENTS } from '../../../domain/agent/failures';
import { LanguageModelError } from '../../../domain/agent/language-model-errors';
import { decimalText } from '../../../domain/agent/money';
import { costOf } from '../../../domain/agent/pricing';
import { promptTokensAtMost, TokenBudgetSpentError } from '../../../domain/agent/token-budget';
import type { Clock } from '../../shared/ports/clock.port';
import type { Logger } from '../../shared/ports/logger.port';
import type { Completion, CompletionRequest, LanguageModel } from '../ports/language-model.port';
import { type BudgetCharge, isRefusal, type TokenReservation } from '../ports/token-budget.port';
import type { AgentRunInput, RunState } from './agent-run';
import type { TurnEnd } from './turn-end';

/** What one model call of a turn asks: the options come from the turn's sampling. */
export type ModelRequest = Pick<CompletionRequest, 'systemPrompt' | 'messages' | 'tools' | 'signal'> & { toolChoice?: 'none' };

/** Why a model call that asked for no tools ended the turn. */
export function answeredReason(completion: Completion): Extract<TurnEnd, { kind: 'answered' }>['finishReason'] {
  return completion.finishReason === 'length' || completion.finishReason === 'content_filter' ? completion.finishReason : 'stop';
}

/**
 * Every model call of a turn: the worst case reserved on the person's budgets first (its
 * tokens, and their cost at the asked model's price), settled after to the provider's count
 * and the call's cost, the words added to the reply as they come.
 */
export class ModelCall {
  constructor(
    private readonly model: LanguageModel,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /**
   * One model call, its words added to the reply as they come: streamed when someone
   * listens for them, else in one piece; either way the reply is the same.
   * @throws what the model or the budget throws; `failure` makes a turn's end of it.
   */
  async ask(input: AgentRunInput, state: RunState, call: ModelRequest, iteration: number): Promise<Completion> {
    const request: CompletionRequest = {
      systemPrompt: call.systemPrompt,
      messages: call.messages,
      tools: call.tools,
      signal: call.signal,
      options: { ...input.sampling, ...(call.toolChoice ? { toolChoice: call.toolChoice } : {}) },
    };
    const reservation = await this.reserve(input, request);
    let completion: Completion | undefined;
    try {
      state.reply.newParagraph();
      completion = input.observer?.text
        ? await this.model.stream(request, (piece) => state.reply.model(piece))
        : await this.model.complete(request);
    } finally {
      if (reservation) await input.budget!.settle(reservation, charged(completion), this.clock.now());
    }
    if (!input.observer?.text && completion.text) state.reply.model(completion.text);
    state.usage = {
      promptTokens: state.usage.promptTokens + completion.usage.promptTokens,
      completionTokens: state.usage.completionTokens + completion.usage.completionTokens,
    };
    state.cost += completion.cost ?? 0n;
    this.logger.info({
      msg: 'model call',
      decisionId: input.context.decisionId,
      iteration,
      finishReason: completion.finishReason,
      toolCalls: completion.toolCalls.length,
      promptTokens: completion.usage.promptTokens,
      completionTokens: completion.usage.completionTokens,
      ...(completion.cost !== undefined && completion.cost !== null ? { cost: decimalText(completion.cost) } : {}),
    });
    return completion;
  }

  /** The turn's end after `ask` threw, logged as loud as the failure needs. */
  failure(input: AgentRunInput, error: unknown, signal: AbortSignal, iteration: number): TurnEnd {
    const failureClass = signal.aborted ? 'TIMEOUT' : classifyModelFailure(error);
    const requestId = error instanceof LanguageModelError ? (error.requestId ?? null) : null;
    const line = {
      msg: 'model call failed',
      decisionId: input.context.decisionId,
      iteration,
      failureClass,
      providerRequestId: requestId,
      provider: this.model.provider,
      err: error,
    };
    // A provider that fails or refuses our request needs someone; limits, budgets and deadlines pass.
    if (isBudgetSpent(failureClass)) this.logger.info(line);
    else if (TREATMENTS[failureClass].retryable && failureClass !== 'PROVIDER_UNAVAILABLE') this.logger.warn(line);
    else this.logger.error(line);
    return { kind: 'failed', failure: { class: failureClass, providerRequestId: requestId }, iterations: iteration };
  }

  /**
   * Holds the most this call can use against the person's budgets: its tokens, and their cost
   * at the price of the model asked for.
   * @throws TokenBudgetSpentError when the day's or the month's budget cannot cover it; the model is not called.
   */
  private async reserve(input: AgentRunInput, request: CompletionRequest): Promise<TokenReservation | null> {
    const { budget } = input;
    if (!budget?.enabled) return null;
    const most = { promptTokens: promptTokensAtMost(request), completionTokens: request.options?.maxTokens ?? input.sampling.maxTokens };
    const price = this.model.price;
    const reserved = await budget.reserve(
      input.context.userId,
      { tokens: most.promptTokens + most.completionTokens, cost: price ? costOf(most, price) : 0n },
      this.clock.now(),
    );
    if (isRefusal(reserved)) throw new TokenBudgetSpentError(reserved.spent);
    return reserved;
  }
}

/** What a call used: its tokens and cost; nothing when it failed before the provider answered. */
function charged(completion: Completion | undefined): BudgetCharge {
  if (!completion) return { tokens: 0, cost: 0n };
  return { tokens: completion.usage.promptTokens + completion.usage.completionTokens, cost: completion.cost ?? 0n };
}
