import { NO_TOOLS } from '../../domain/agent/decision';
import { type BudgetUsed, spendQuestion, spendSentence } from '../../domain/agent/monthly-budget';
import { CHAT_TURN } from '../../domain/policy/policy';
import type { PolicyGate } from '../policy/policy-gate';
import { answer, type TurnResult } from './turn-result';

/** What a person who said no to going on reads: nothing went to the model. */
export const TURN_CANCELLED = "Okay, I've stopped there. Nothing was sent to the assistant.";

/**
 * Whether a chat turn may call the model, as the policy in force decides the turn itself
 * (CHAT_TURN), before its first model call (a summary included). `deny` ends it at once with
 * the rule's reason and no model call; `ask-person` ends it with a question the person answers
 * in the chat, as a deletion's (a pending confirmation of `chat_turn` holding the message),
 * once per turn: a turn that runs on the person's yes is let through. Anything else goes on.
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
          `(Policy rule '${decision.rule ?? ''}'.) Nothing was sent to the assistant.`,
        ];
        const result = answer(said.filter((part) => part !== null).join(' '), 'REFUSED', undefined);
        return { ...result, finishReason: viaBudget ? 'budget_spent' : 'policy_denied' };
      }
      case 'ask-person':
        return agreed ? null : asked(message, budget, decision.rule ?? '');
      case 'allow':
      case 'ask-reviewer':
        // A rule cannot ask a reviewer about a chat turn (readPolicy): it is only named for the switch to be whole.
        return null;
      default: {
        const unknown: never = decision.effect;
        return unknown;
      }
    }
  }
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
