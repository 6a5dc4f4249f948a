import { NO_TOOLS } from '../../domain/agent/decision';
import { type BudgetUsed, spendQuestion, spendSentence } from '../../domain/agent/monthly-budget';
import { CHAT_TURN, type PolicyDecision } from '../../domain/policy/policy';
import { overLimit } from '../../domain/policy/policy-refusal';
import type { PolicyGate } from '../policy/policy-gate';
import { answer, type TurnResult } from './turn-result';

/** What a person who said no to going on reads: nothing went to the model. */
export const TURN_CANCELLED = "Okay, I've stopped there. Nothing was sent to the assistant.";

/**
 * Whether a chat turn may call the model, as the policy in force decides the turn itself
 * (CHAT_TURN), before its first model call (a summary included). `deny` ends it at once with
 * the rule's reason and no model call; `ask-person` ends it with a question the person answers
 * in the chat, as a deletion's (a pending confirmation of `chat_turn` holding the message),
 * once per turn: a turn that runs on the person's yes is let through. A turn that runs is
 * counted against the `limit` rules it matched; past one, it is refused. Anything else goes on.
 */
export class TurnAdmission {
  constructor(private readonly policy: PolicyGate) {}

  /**
   * @param agreed the person already said yes in this turn (to this question, or to a deletion's): they are not asked again.
   * @returns null when the turn goes on; else the turn's result, the model never called (told to no listener yet).
   */
  async admit(userId: string, message: string, agreed: boolean): Promise<TurnResult | null> {
    const { decision, budget } = await this.policy.decideTurn(userId);
    switch (decision.effect) {
      case 'deny': {
        const viaBudget = decision.when?.budgetUsed !== undefined;
        const said = [
          viaBudget && budget ? spendSentence(budget) : null,
          decision.reason ?? "The assistant isn't available to you now.",
          `(Policy rule '${decision.rule ?? ''}'.) ${NOTHING_SENT}`,
        ];
        return refused(said.filter((part) => part !== null).join(' '), viaBudget ? 'budget_spent' : 'policy_denied');
      }
      case 'ask-person':
        // Nobody is asked about a turn its limit would refuse anyway; a yes is counted when its turn runs.
        if (!agreed) return (await this.overLimit(decision, 'look')) ?? asked(message, budget, decision.rule ?? '');
        return this.overLimit(decision, 'count');
      case 'allow':
      case 'ask-reviewer':
        // A rule cannot ask a reviewer about a chat turn (readPolicy): it is only named for the switch to be whole.
        return this.overLimit(decision, 'count');
      default: {
        const unknown: never = decision.effect;
        return unknown;
      }
    }
  }

  /** The turn refused by a `limit` rule on chat_turn that is full; `count` counts a turn that runs (nothing when one is full). */
  private async overLimit(decision: PolicyDecision, how: 'look' | 'count'): Promise<TurnResult | null> {
    const reached = how === 'count' ? await this.policy.take(decision) : await this.policy.full(decision);
    if (!reached) return null;
    const refusal = overLimit(decision.version, reached.limit, reached.retryAfterSeconds);
    return refused(refusal.message, 'policy_denied');
  }
}

const NOTHING_SENT = 'Nothing was sent to the assistant.';

/** A turn the policy refused: the server's sentence, the model never called. */
function refused(text: string, finishReason: 'budget_spent' | 'policy_denied'): TurnResult {
  return { ...answer(text, 'REFUSED', undefined), finishReason };
}

/** The question, stored as a pending confirmation of CHAT_TURN that holds the message to answer on yes. */
function asked(message: string, budget: BudgetUsed | null, rule: string): TurnResult {
  const prompt = budget ? spendQuestion(budget) : 'Go on with this request?';
  const result = answer(prompt, 'ASKED', undefined);
  return {
    ...result,
    finishReason: 'confirmation_required',
    decisionType: 'REQUEST_CONFIRMATION',
    facts: { ...NO_TOOLS, confirmationRequested: true },
    confirmation: {
      tool: CHAT_TURN,
      arguments: { message, rule, ...(budget ? { spend: spendSentence(budget) } : {}) },
      prompt,
    },
  };
}
