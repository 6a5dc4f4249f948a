import { BULK_CHANGE, interpretConfirmationReply, isExpired } from '../../domain/agent/confirmation';
import { type ModelSampling, requestedSampling } from '../../domain/agent/limits';
import type { ReplyVocabulary } from '../../domain/agent/reply-check';
import type { ReplyGate } from '../../domain/agent/reply-gate';
import type { AgentMessage } from '../../domain/agent/tools';
import { validMessage } from '../../domain/chat/conversation';
import type { TurnRouteInput } from '../../domain/chat/turn-route';
import type { AgentRunInput, TurnObserver } from '../agent/agent-loop';
import type { TokenBudget } from '../agent/ports/token-budget.port';
import type { ChatTurnInput, TurnDeps } from './chat-turn';
import { withSummary } from './conversation-summary.prompt';
import type { TurnContext } from './ports/conversation-store.port';
import { checkedObserver, echoesOf } from './reply-checking';
import { todoAssistantPrompt } from './todo-assistant.prompt';
import { turnWindow, type TurnWindow } from './turn-window';

/** A turn as its opening statement left it: what every later step reads and none changes. */
export interface OpenedTurn {
  readonly userId: string;
  readonly conversationId: string;
  readonly decisionId: string;
  /** The person's message, as stored. */
  readonly message: string;
  /** The turn's model calls' sampling: the server's, or the request's own within its bounds. */
  readonly sampling: ModelSampling;
  readonly started: Date;
  readonly context: AgentRunInput['context'];
  /** The conversation as the opening read it: its summary, its window of messages, its open question. */
  readonly loaded: TurnContext;
  /** What the turn's route is decided from (routeTurn). */
  readonly routing: TurnRouteInput;
}

/** What a turn runs on: the conversation's window its model reads, the run, and what its reply is checked against. */
export interface PreparedTurn {
  readonly window: TurnWindow;
  readonly run: AgentRunInput;
  readonly vocabulary: ReplyVocabulary;
  /** What a listener was let read of the reply so far; null without one. */
  readonly gate: ReplyGate | null;
}

/**
 * The opening of a chat turn: its one opening statement (ConversationStore.startTurn), then,
 * once its route is known, the window of the conversation the model reads (turnWindow) and
 * the run the route takes.
 */
export class TurnOpening {
  /** The system prompt the turn's model reads (before the summary), one line per tool it is offered. */
  private readonly systemPrompt: string;

  constructor(
    private readonly deps: TurnDeps,
    private readonly budget: TokenBudget,
  ) {
    this.systemPrompt = todoAssistantPrompt(deps.tools.definitions);
  }

  /** Stores the person's message and opens the turn's decision row, reading the conversation back (one statement). */
  async open(input: ChatTurnInput, decisionId: string): Promise<OpenedTurn> {
    const message = validMessage(input.message);
    const sampling = requestedSampling(this.deps.settings.sampling, input);
    const started = this.deps.clock.now();
    const loaded = await this.deps.store.startTurn({
      userId: input.userId,
      conversationId: input.conversationId ?? null,
      message,
      decisionId,
      model: this.deps.agent.provider,
      window: this.deps.settings.limits.historyWindow,
      turnsPerMinute: this.deps.settings.turnsPerMinute,
      account: input.account,
      now: started,
    });
    const { conversationId } = loaded;
    const pending = loaded.pendingConfirmation;
    const named = input.confirmationId ?? null;
    return {
      userId: input.userId,
      conversationId,
      decisionId,
      message,
      sampling,
      started,
      context: { userId: input.userId, source: 'chat', conversationId, decisionId },
      loaded,
      routing: {
        message,
        pending,
        named,
        reading: pending || named ? interpretConfirmationReply(message) : 'other',
        expired: pending !== null && isExpired(pending, started),
      },
    };
  }

  /**
   * The window the model reads, ending with `said`, and the run made of it. When `summarize`
   * (the turn calls the model), older exchanges that no longer fit are summarised first.
   */
  async prepare(opened: OpenedTurn, said: string, summarize: boolean, observer?: TurnObserver): Promise<PreparedTurn> {
    const { limits, supportContact } = this.deps.settings;
    const { context, sampling } = opened;
    const budget = this.budget;
    const { agent, ids, tools } = this.deps;
    const { systemPrompt } = this;
    const window = await turnWindow(
      { agent, ids, tools, systemPrompt },
      opened.loaded,
      said,
      { context, limits, sampling: this.deps.settings.sampling, budget },
      summarize,
    );
    const messages = [...window.messages, { role: 'user', content: said } satisfies AgentMessage];
    // Listed once and cached; a gateway that cannot list them leaves the other rules to judge.
    const vocabulary = { toolNames: [...(await this.deps.agent.toolNames().catch(() => [])), BULK_CHANGE], echoes: echoesOf(messages) };
    const checking = checkedObserver(observer, vocabulary);
    const run: AgentRunInput = {
      systemPrompt: withSummary(systemPrompt, window.summary?.content ?? null),
      messages,
      context,
      limits,
      sampling,
      budget,
      observer: checking?.observer ?? observer,
      supportContact,
      words: this.deps.toolbox.words,
    };
    return { window, run, vocabulary, gate: checking?.gate ?? null };
  }
}
