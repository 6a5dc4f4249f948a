import { Injectable } from '@nestjs/common';
import { routeTurn } from '../../domain/chat/turn-route';
import { TokenBudget } from '../agent/ports/token-budget.port';
import { Toolbox } from '../agent/ports/toolbox.port';
import { AgentLoop, type TurnObserver } from '../agent/agent-loop';
import { Clock } from '../shared/ports/clock.port';
import { IdGenerator } from '../shared/ports/id-generator.port';
import { Metrics } from '../shared/ports/metrics.port';
import { AgentSettings } from '../agent/agent-settings';
import { PolicyGate } from '../policy/policy-gate';
import type { ChatReply, ChatTurnInput } from './chat-turn';
import { TurnAdmission } from './turn-admission';
import { ConversationStore } from './ports/conversation-store.port';
import { TurnReplyCheck } from './reply-checking';
import { Logger } from '../shared/ports/logger.port';
import { genAiProviderName, NO_TRACER, Tracer } from '../shared/ports/tracer.port';
import { TurnClosing } from './turn-closing';
import { TurnOpening } from './turn-opening';
import { TurnRoutes } from './turn-routes';
import { TodoTools } from '../todo/tools/todo-tools';

export type { ChatReply, ChatTurnInput, TurnMessage } from './chat-turn';

/** `gen_ai.agent.name` of a chat turn's spans. */
const TODO_ASSISTANT = 'todo_assistant';

/**
 * One chat turn, stateless: store the person's message before the model runs while loading
 * the conversation window and any pending confirmation, answer, store the answer with its
 * tool calls and the decision log. Nothing is kept in memory between turns.
 *
 * The turn is a few steps, each returning what the next reads: it opens (TurnOpening: the
 * opening statement), takes its route (routeTurn: already handled, expired, cancel, confirm
 * or ask the model), asks the turn admission when the route would call the model
 * (TurnAdmission), prepares its window and run (TurnOpening.prepare), runs the route
 * (TurnRoutes), checks the reply (TurnReplyCheck) and closes (TurnClosing: the closing
 * statement, the metrics and the reply).
 */
@Injectable()
export class SendChatMessageUseCase {
  private readonly admission: TurnAdmission;
  private readonly opening: TurnOpening;
  private readonly routes: TurnRoutes;
  private readonly check: TurnReplyCheck;
  private readonly closing: TurnClosing;

  constructor(
    store: ConversationStore,
    private readonly agent: AgentLoop,
    settings: AgentSettings,
    clock: Clock,
    private readonly ids: IdGenerator,
    metrics: Metrics,
    budget: TokenBudget,
    toolbox: Toolbox,
    policy: PolicyGate,
    logger: Logger,
    private readonly tracer: Tracer = NO_TRACER,
    tools: TodoTools = TodoTools.builtIn,
  ) {
    const deps = { store, agent, settings, clock, ids, toolbox, tools };
    this.admission = new TurnAdmission(policy);
    this.opening = new TurnOpening(deps, budget);
    this.routes = new TurnRoutes(deps);
    this.check = new TurnReplyCheck(toolbox, logger.withContext(SendChatMessageUseCase.name));
    this.closing = new TurnClosing(deps, metrics);
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

  /** Open → route → (admission) → prepare → run the route → check the reply → close. */
  private async turn(input: ChatTurnInput, decisionId: string, observer?: TurnObserver): Promise<ChatReply> {
    const opened = await this.opening.open(input, decisionId);
    const route = routeTurn(opened.routing);
    // Before any model call (a summary's included), the policy in force decides the turn itself.
    const refusal = route.admission && (await this.admission.admit(opened.userId, route.said, route.admission.agreed));
    const prepared = await this.opening.prepare(opened, route.said, route.admission !== null && !refusal, observer);
    const result = await this.routes.run(route, refusal, prepared.run);
    return this.closing.close(opened, route, prepared.window, this.check.checked(result, prepared, decisionId));
  }
}
