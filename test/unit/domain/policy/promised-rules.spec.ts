import { TODO_TOOLS } from '../../../../src/application/todo/tools/todo-tool-definitions';
import { CompiledPolicy } from '../../../../src/domain/policy/compiled-policy';
import { CHAT_ASKS_BEFORE_DESTRUCTION, defaultPolicy, policyCatalogue } from '../../../../src/domain/policy/default-policy';
import type { PolicyCall, PolicySource } from '../../../../src/domain/policy/policy';
import { problemInWords, readPolicy } from '../../../../src/domain/policy/policy-document';

const catalogue = policyCatalogue(TODO_TOOLS);
const ALICE = '11111111-1111-4111-8111-111111111111';

function stored(rules: unknown[]): CompiledPolicy {
  const reading = readPolicy({ rules }, catalogue);
  if (!reading.ok) throw new Error(reading.problems.map(problemInWords).join('\n'));
  return new CompiledPolicy(5, reading.document, catalogue);
}

const call = (source: PolicySource, tool = 'delete_task'): PolicyCall => ({
  tool,
  source,
  userId: ALICE,
  targets: { items: 1, recipient: null },
  at: new Date('2026-11-30T12:00:00Z'),
});

describe('the rule every policy holds: in the chat, a destructive call is put to the person', () => {
  const ALLOW_DELETES = { name: 'deletes-run', tools: ['delete_task'], effect: 'allow' };
  const CAP = { name: 'delete-cap', tools: ['delete_task'], effect: 'limit', limit: { max: 5, per: 'person', window: 'day' } };

  it('puts a chat delete an admin allows to the person, naming the built-in rule and keeping the limits it matched', () => {
    const policy = stored([CAP, ALLOW_DELETES]);
    const decision = policy.decide(call('chat'));
    expect(decision).toMatchObject({ version: 5, effect: 'ask-person', rule: CHAT_ASKS_BEFORE_DESTRUCTION, position: null, items: 1 });
    expect(decision.limits.map((limit) => limit.rule)).toEqual(['delete-cap']);
    // What the stored rules say on their own is unchanged.
    expect(policy.evaluate(call('chat'))).toMatchObject({ effect: 'allow', rule: 'deletes-run' });
  });

  it('leaves MCP, the REST API and every other tool to the stored rules', () => {
    const policy = stored([ALLOW_DELETES]);
    expect(policy.decide(call('mcp'))).toMatchObject({ effect: 'allow', rule: 'deletes-run' });
    expect(policy.decide(call('api'))).toMatchObject({ effect: 'allow', rule: 'deletes-run' });
    expect(policy.decide(call('chat', 'complete_task'))).toMatchObject({ effect: 'allow', rule: null });
  });

  it("keeps a stored policy's denial and its own question for chat deletes: it only takes an allow", () => {
    const deny = { name: 'no-deletes', tools: ['delete_task'], effect: 'deny', reason: 'Not this week.' };
    expect(stored([deny]).decide(call('chat'))).toMatchObject({ effect: 'deny', rule: 'no-deletes', reason: 'Not this week.' });
    const builtIn = new CompiledPolicy(0, defaultPolicy(catalogue, 'allow'), catalogue);
    expect(builtIn.decide(call('chat'))).toMatchObject({ effect: 'ask-person', rule: 'destruction-needs-the-person' });
    expect(builtIn.decide(call('mcp'))).toMatchObject({ effect: 'allow', rule: 'mcp-destroys-unasked' });
  });
});
