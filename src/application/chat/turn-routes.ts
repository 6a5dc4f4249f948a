import { EXPIRED_CONFIRMATION_REPLY, type PendingConfirmation } from '../../domain/agent/confirmation';
import type { TurnRoute } from '../../domain/chat/turn-route';
import { CHAT_TURN } from '../../domain/policy/policy';
import type { AgentRunInput } from '../agent/agent-loop';
import type { TurnDeps } from './chat-turn';
import { TURN_CANCELLED } from './turn-admission';
import { answer, type TurnResult } from './turn-result';

const CANCELLED = "Okay, I've cancelled that. Nothing was changed.";
const ALREADY_HANDLED = 'That request was already handled or has expired, so I did nothing.';

/** Each way a chat turn goes (TurnRoute, routeTurn), run on the turn's prepared run. */
export class TurnRoutes {
  constructor(private readonly deps: TurnDeps) {}

  /**
   * The turn's result on `route`. `refusal`: the turn admission's answer to a route that asked
   * it (`model`, `confirm`) when it did not let the model be called; null when it did.
   */
  run(route: TurnRoute, refusal: TurnResult | null, run: AgentRunInput): Promise<TurnResult> | TurnResult {
    switch (route.kind) {
      case 'already-handled':
        return answer(ALREADY_HANDLED, 'REFUSED', run.observer);
      case 'expired':
        // Nobody said no, the time ran out (EXPIRED, never REFUSED).
        return answer(EXPIRED_CONFIRMATION_REPLY, 'EXPIRED', run.observer);
      case 'cancel':
        return this.cancel(route.pending, run);
      case 'confirm':
        return refusal ? told(refusal, run) : this.confirm(route.pending, run);
      case 'model':
        return refusal ? told(refusal, run) : this.deps.agent.run(run);
      default: {
        const unknown: never = route;
        return unknown;
      }
    }
  }

  /** A no: the question is closed as cancelled, if it is still open. */
  private async cancel(pending: PendingConfirmation, run: AgentRunInput): Promise<TurnResult> {
    const action = await this.deps.store.takePendingConfirmation(pending.id, run.context.userId, 'cancelled', this.deps.clock.now());
    if (!action) return answer(ALREADY_HANDLED, 'REFUSED', run.observer);
    return answer(action.tool === CHAT_TURN ? TURN_CANCELLED : CANCELLED, 'SUCCEEDED', run.observer);
  }

  /** A yes: taking the action is atomic, so of two racing "yes" messages one runs it. */
  private async confirm(pending: PendingConfirmation, run: AgentRunInput): Promise<TurnResult> {
    const action = await this.deps.store.takePendingConfirmation(pending.id, run.context.userId, 'confirmed', this.deps.clock.now());
    if (!action) return answer(ALREADY_HANDLED, 'REFUSED', run.observer);
    // The turn the person was asked about goes on: the model answers the message the question held (run.messages ends with it).
    if (action.tool === CHAT_TURN) return this.deps.agent.run(run);
    return this.deps.agent.runConfirmed(run, action);
  }
}

/** The turn admission's answer, told to the listener now that the turn's listener is set up. */
function told(refusal: TurnResult, run: AgentRunInput): TurnResult {
  run.observer?.text?.(refusal.text);
  return refusal;
}
