import { TurnAdmission } from '../../../src/application/chat/turn-admission';
import { TODO_TOOLS } from '../../../src/application/todo/tools/todo-tool-definitions';
import { amountOf } from '../../../src/domain/agent/money';
import type { PolicyRule } from '../../../src/domain/policy/policy';
import { builtInPolicy, FixedMonthlyBudgets, policyGate, policyOf } from '../../fakes/policy';

const ADA = '11111111-1111-4111-8111-111111111111';

/** Ada's month holds `spent` of 10 EUR. */
function admission(rules: readonly PolicyRule[] | null, spent = '0'): TurnAdmission {
  const budgets = new FixedMonthlyBudgets('EUR', { [ADA]: { spent: amountOf(spent)!, budget: amountOf('10')! } });
  return new TurnAdmission(policyGate(rules ? policyOf(TODO_TOOLS, rules) : builtInPolicy(TODO_TOOLS), { budgets }));
}

const ASK_PAST_80: PolicyRule = {
  name: 'ask-past-80',
  tools: ['chat_turn'],
  when: { budgetUsed: { atLeastPercent: 80 } },
  effect: 'ask-person',
};

describe(TurnAdmission.name, () => {
  it('lets every turn through under the built-in policy, however much is spent', async () => {
    await expect(admission(null, '10').admit(ADA, 'add milk', false)).resolves.toBeNull();
  });

  it('asks before a turn past the threshold, holding the message and giving the spend; not again on the yes', async () => {
    const sut = admission([ASK_PAST_80], '8.125');
    await expect(sut.admit(ADA, 'add milk', false)).resolves.toMatchObject({
      text: 'You have used €8.13 of your €10.00 budget this month (81 %). Go on?',
      finishReason: 'confirmation_required',
      decisionType: 'REQUEST_CONFIRMATION',
      outcome: 'ASKED',
      confirmation: {
        tool: 'chat_turn',
        arguments: { message: 'add milk', rule: 'ask-past-80', spend: 'You have used €8.13 of your €10.00 budget this month (81 %).' },
      },
    });
    await expect(sut.admit(ADA, 'add milk', true)).resolves.toBeNull();
    await expect(admission([ASK_PAST_80], '7.99').admit(ADA, 'add milk', false)).resolves.toBeNull();
  });

  it('refuses a turn a rule denies, also on a yes: budget_spent for a rule on the budget, policy_denied for another', async () => {
    const cap = admission(
      [{ name: 'cap', tools: ['chat_turn'], when: { budgetUsed: { atLeastPercent: 100 } }, effect: 'deny', reason: 'Spent.' }],
      '10',
    );
    await expect(cap.admit(ADA, 'add milk', true)).resolves.toMatchObject({
      finishReason: 'budget_spent',
      outcome: 'REFUSED',
      confirmation: null,
      text: "You have used €10.00 of your €10.00 budget this month (100 %). Spent. (Policy rule 'cap'.) Nothing was sent to the assistant.",
    });
    const closed = admission([{ name: 'closed', tools: ['chat_turn'], effect: 'deny', reason: 'The assistant is closed.' }]);
    await expect(closed.admit(ADA, 'add milk', false)).resolves.toMatchObject({
      finishReason: 'policy_denied',
      text: "The assistant is closed. (Policy rule 'closed'.) Nothing was sent to the assistant.",
    });
  });

  it('counts the turns that run against a limit on chat_turn, and refuses the one past it without asking', async () => {
    const limit: PolicyRule = { name: 'two-turns', tools: ['chat_turn'], effect: 'limit', limit: { max: 2, per: 'person', window: 'day' } };
    const sut = admission([limit, ASK_PAST_80], '9');
    // Asked twice: a question counts nothing; each yes counts its turn.
    await expect(sut.admit(ADA, 'one', false)).resolves.toMatchObject({ finishReason: 'confirmation_required' });
    await expect(sut.admit(ADA, 'one', true)).resolves.toBeNull();
    await expect(sut.admit(ADA, 'two', true)).resolves.toBeNull();
    await expect(sut.admit(ADA, 'three', false)).resolves.toMatchObject({
      finishReason: 'policy_denied',
      text: expect.stringContaining("at most 2 a day (policy rule 'two-turns')"),
    });
  });
});
