import { TODO_TOOLS } from '../../../../src/application/todo/tools/todo-tool-definitions';
import { amountOf } from '../../../../src/domain/agent/money';
import { CompiledPolicy } from '../../../../src/domain/policy/compiled-policy';
import { defaultPolicy, policyCatalogue } from '../../../../src/domain/policy/default-policy';
import { CHAT_TURN, type PolicyCall, type PolicyDocument } from '../../../../src/domain/policy/policy';
import { problemInWords, readPolicy } from '../../../../src/domain/policy/policy-document';

const catalogue = policyCatalogue(TODO_TOOLS);
const ALICE = '11111111-1111-4111-8111-111111111111';
const NOON = new Date('2026-12-14T12:00:00Z');

function read(rules: unknown[]): PolicyDocument {
  const reading = readPolicy({ rules }, catalogue);
  if (!reading.ok) throw new Error(reading.problems.map(problemInWords).join('\n'));
  return reading.document;
}

function problems(rules: unknown[]): string[] {
  const reading = readPolicy({ rules }, catalogue);
  return reading.ok ? [] : reading.problems.map(problemInWords);
}

/** A call by Alice, whose month holds `used` of a budget of 10 EUR (null: she has none). */
function call(tool: string, source: PolicyCall['source'], used: string | null): PolicyCall {
  return {
    tool,
    source,
    userId: ALICE,
    targets: { items: 1, recipient: null },
    at: NOON,
    budget: used === null ? null : { used: amountOf(used)!, budget: amountOf('10')!, currency: 'EUR' },
  };
}

/** Past 100 %, every call and every turn is refused; past 80 %, the person is asked before each turn. */
const BUDGET_RULES = [
  {
    name: 'month-spent',
    tools: [CHAT_TURN, '*'],
    when: { budgetUsed: { atLeastPercent: 100 } },
    effect: 'deny',
    reason: "This month's budget is spent.",
  },
  { name: 'ask-past-80', tools: [CHAT_TURN], when: { budgetUsed: { atLeastPercent: 80 } }, effect: 'ask-person' },
];

describe('a rule on the share of the month’s budget used', () => {
  const policy = new CompiledPolicy(1, read(BUDGET_RULES), catalogue);

  it('decides a chat turn at the edges: under 80 % it runs, from 80 % it asks, from 100 % it is refused', () => {
    expect(policy.evaluate(call(CHAT_TURN, 'chat', '7.999999999999')).effect).toBe('allow');
    expect(policy.evaluate(call(CHAT_TURN, 'chat', '8'))).toMatchObject({ effect: 'ask-person', rule: 'ask-past-80' });
    expect(policy.evaluate(call(CHAT_TURN, 'chat', '9.999999999999'))).toMatchObject({ effect: 'ask-person' });
    expect(policy.evaluate(call(CHAT_TURN, 'chat', '10'))).toMatchObject({
      effect: 'deny',
      rule: 'month-spent',
      reason: "This month's budget is spent.",
      when: { budgetUsed: { atLeastPercent: 100 } },
    });
  });

  it('refuses the tool calls of every source past 100 %, an MCP client’s too, and never matches a person with no monthly budget', () => {
    expect(policy.evaluate(call('add_task', 'mcp', '10')).effect).toBe('deny');
    expect(policy.evaluate(call('send_email', 'outreach', '12')).effect).toBe('deny');
    expect(policy.evaluate(call('add_task', 'mcp', '9.99')).effect).toBe('allow');
    expect(policy.evaluate(call('add_task', 'mcp', null)).effect).toBe('allow');
    expect(policy.evaluate(call(CHAT_TURN, 'chat', null)).effect).toBe('allow');
    // A call that carries no month (the policy read none) matches no budget rule either.
    expect(policy.evaluate({ ...call(CHAT_TURN, 'chat', null), budget: undefined }).effect).toBe('allow');
  });

  it('says which tools read the month, and the thresholds to notify', () => {
    expect(policy.readsBudget(CHAT_TURN)).toBe(true);
    expect(policy.readsBudget('add_task')).toBe(true);
    expect(policy.budgetThresholds).toEqual([80, 100]);
    const builtIn = new CompiledPolicy(0, defaultPolicy(catalogue, 'confirm-in-chat'), catalogue);
    expect(builtIn.readsBudget(CHAT_TURN)).toBe(false);
    expect(builtIn.budgetThresholds).toEqual([]);
  });
});

describe('the chat turn as a subject of the policy', () => {
  it('is named only by its own name: a glob of tools never matches it, so rules written for tools keep their meaning', () => {
    const policy = new CompiledPolicy(1, read([{ name: 'nothing-at-night', tools: ['*'], effect: 'deny', reason: 'Closed.' }]), catalogue);
    expect(policy.evaluate(call('add_task', 'chat', null)).effect).toBe('deny');
    expect(policy.evaluate(call(CHAT_TURN, 'chat', null)).effect).toBe('allow');
    expect(problems([{ name: 'turns', tools: ['chat_*'], effect: 'deny', reason: 'No.' }])).toEqual([
      expect.stringContaining("rules[1].tools[0] 'chat_*' matches no tool"),
    ]);
  });

  it('runs in the built-in policy as before: no rule names it', () => {
    const builtIn = new CompiledPolicy(0, defaultPolicy(catalogue, 'confirm-in-chat'), catalogue);
    expect(builtIn.evaluate(call(CHAT_TURN, 'chat', '10'))).toMatchObject({ effect: 'allow', rule: null });
  });

  it('can be put to the person, limited or refused, but not held for a reviewer, nor named from another source', () => {
    expect(problems([{ name: 'cap', tools: [CHAT_TURN], effect: 'limit', limit: { max: 50, per: 'person', window: 'day' } }])).toEqual([]);
    expect(
      problems([{ name: 'review', tools: [CHAT_TURN], effect: 'ask-reviewer', reviewer: { timeoutMinutes: 5, fallback: 'reject' } }]),
    ).toEqual([expect.stringContaining("rules[1].effect 'ask-reviewer' is not possible for chat_turn")]);
    expect(problems([{ name: 'mcp-turns', tools: [CHAT_TURN], sources: ['mcp'], effect: 'deny', reason: 'No.' }])).toEqual([
      expect.stringContaining('rules[1].sources can never match: chat_turn is called from chat'),
    ]);
    expect(problems([{ name: 'big', tools: [CHAT_TURN], when: { items: { over: 3 } }, effect: 'deny', reason: 'No.' }])).toEqual([
      expect.stringContaining('rules[1].when.items can never match: no tool the rule names has items (chat_turn)'),
    ]);
  });
});

describe('reading `when.budgetUsed`', () => {
  const rule = (budgetUsed: unknown) => [{ name: 'ask', tools: [CHAT_TURN], when: { budgetUsed }, effect: 'ask-person' }];

  it('takes a whole percentage from 1 to 1000', () => {
    expect(read(rule({ atLeastPercent: 80 })).rules[0].when).toEqual({ budgetUsed: { atLeastPercent: 80 } });
    expect(read(rule({ atLeastPercent: 150 })).rules[0].when).toEqual({ budgetUsed: { atLeastPercent: 150 } });
  });

  it.each([
    [{}, 'rules[1].when.budgetUsed.atLeastPercent is required'],
    [{ atLeastPercent: 0 }, 'rules[1].when.budgetUsed.atLeastPercent must be a whole number from 1 to 1000'],
    [{ atLeastPercent: 80.5 }, 'rules[1].when.budgetUsed.atLeastPercent must be a whole number from 1 to 1000'],
    [{ atLeastPercent: '80' }, 'rules[1].when.budgetUsed.atLeastPercent must be a whole number from 1 to 1000'],
    [{ atLeastPercent: 80, below: 90 }, 'rules[1].when.budgetUsed.below is not a field of budgetUsed (atLeastPercent)'],
    [80, 'rules[1].when.budgetUsed must be {atLeastPercent: a whole number}'],
  ])('refuses %j, naming the field', (budgetUsed, problem) => {
    expect(problems(rule(budgetUsed))).toEqual([expect.stringContaining(problem)]);
  });
});
