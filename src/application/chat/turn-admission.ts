import { NO_TOOLS } from '../../domain/agent/decision';
import { type BudgetUsed, spendQuestion, spendSentence } from '../../domain/agent/monthly-budget';
import { enforcement, type PolicyDoor } from '../../domain/policy/enforcement';
import { CHAT_TURN, type PolicyObligations } from '../../domain/policy/policy';
import { overLimit, type PolicyRefusal } from '../../domain/policy/policy-refusal';
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
    const door: TurnDoor = { person: agreed ? 'agreed' : 'asks', reviewer: 'nobody' };
    const enforced = enforcement(decision, door);
    switch (enforced.kind) {
      case 'refuse': {
        const viaBudget = decision.when?.budgetUsed !== undefined;
        return refused(refusalWords(enforced.refusal, viaBudget ? budget : null), viaBudget ? 'budget_spent' : 'policy_denied');
      }
      case 'ask-person':
        // Nobody is asked about a turn its limit would refuse anyway; a yes is counted when its turn runs.
        return (await this.overLimit(decision.version, enforced.obligations, 'look')) ?? asked(message, budget, enforced.rule);
      case 'run':
        return this.overLimit(decision.version, enforced.obligations, 'count');
      default: {
        const unknown: never = enforced;
        return unknown;
      }
    }
  }

  /** The turn refused by a `limit` rule on chat_turn that is full; `count` counts a turn that runs (nothing when one is full). */
  private async overLimit(version: number, obligations: PolicyObligations, how: 'look' | 'count'): Promise<TurnResult | null> {
    const reached = how === 'count' ? await this.policy.take(obligations) : await this.policy.full(obligations);
    if (!reached) return null;
    const refusal = overLimit(version, reached.limit, reached.retryAfterSeconds);
    return refused(refusal.message, 'policy_denied');
  }
}

/** The chat turn as a door: it asks the person in the chat, unless this turn runs on their yes; no reviewer. */
interface TurnDoor extends PolicyDoor {
  readonly person: 'asks' | 'agreed';
  readonly reviewer: 'nobody';
}

/** A refused turn in the server's words: the spend when a rule on the budget refused it, the rule's reason, the rule. */
function refusalWords(refusal: PolicyRefusal, spent: BudgetUsed | null): string {
  const said = [
    spent ? spendSentence(spent) : null,
    refusal.details.reason ?? "The assistant isn't available to you now.",
    `(Policy rule '${refusal.details.rule}'.) ${NOTHING_SENT}`,
  ];
  return said.filter((part) => part !== null).join(' ');
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
