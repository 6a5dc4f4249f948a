import { TODO_TOOLS } from '../../../../src/application/todo/tools/todo-tool-definitions';
import { CompiledPolicy } from '../../../../src/domain/policy/compiled-policy';
import { policyCatalogue } from '../../../../src/domain/policy/default-policy';
import type { PolicyCall, PolicyLimit } from '../../../../src/domain/policy/policy';
import { problemInWords, readPolicy } from '../../../../src/domain/policy/policy-document';

const catalogue = policyCatalogue(TODO_TOOLS);
const ALICE = '11111111-1111-4111-8111-111111111111';
const BOB = '22222222-2222-4222-8222-222222222222';
const CAP = { name: 'add-cap', tools: ['add_task'], effect: 'limit', limit: { max: 1, per: 'person', window: 'week' } };

function limitsOf(rules: unknown[], options: { version?: number; accounts?: Map<string, string>; call?: Partial<PolicyCall> } = {}) {
  const reading = readPolicy({ rules }, catalogue);
  if (!reading.ok) throw new Error(reading.problems.map(problemInWords).join('\n'));
  const policy = new CompiledPolicy(options.version ?? 1, reading.document, catalogue, options.accounts);
  const call: PolicyCall = {
    tool: 'add_task',
    source: 'api',
    userId: ALICE,
    role: 'user',
    targets: { items: 1, recipient: null },
    at: new Date(),
  };
  return policy.evaluate({ ...call, ...options.call }).limits;
}

const keyOf = (rules: unknown[], options: Parameters<typeof limitsOf>[1] = {}): string => {
  const limits: PolicyLimit[] = [...limitsOf(rules, options)];
  expect(limits).toHaveLength(1);
  return limits[0].key;
};

describe("a limit's counter belongs to the rule's definition, not to its name", () => {
  it('is the same counter in another version that keeps the rule as it was, renamed or moved', () => {
    const first = keyOf([CAP], { version: 1 });
    const other = { name: 'no-deletes', tools: ['delete_task'], effect: 'deny', reason: 'No.' };
    expect(keyOf([other, { ...CAP, name: 'renamed-cap' }], { version: 2 })).toBe(first);
    // Lists that say the same in another order are the same definition.
    expect(keyOf([{ ...CAP, tools: ['add_task', 'update_task'] }])).toBe(keyOf([{ ...CAP, tools: ['update_task', 'add_task'] }]));
  });

  it.each([
    ['its window', { limit: { max: 1, per: 'person', window: 'minute' } }],
    ['its max', { limit: { max: 2, per: 'person', window: 'week' } }],
    ['whose counter it is', { limit: { max: 1, per: 'everyone', window: 'week' } }],
    ['its tools', { tools: ['add_task', 'complete_task'] }],
    ['its sources', { sources: ['api'] }],
    ['its roles', { roles: ['user'] }],
    ['its conditions', { when: { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] } }],
    ['its people', { people: [ALICE] }],
  ])('starts a fresh counter when a version changes %s', (_, change) => {
    expect(keyOf([{ ...CAP, ...change }])).not.toBe(keyOf([CAP]));
  });

  it('counts each person apart under `per: person`, and everyone together under `per: everyone`', () => {
    expect(keyOf([CAP], { call: { userId: BOB } })).not.toBe(keyOf([CAP]));
    const everyone = { ...CAP, limit: { max: 1, per: 'everyone', window: 'week' } };
    expect(keyOf([everyone], { call: { userId: BOB } })).toBe(keyOf([everyone]));
  });

  it('names people by the account they were resolved to: the same email resolved to another account is another counter', () => {
    const everyone = { ...CAP, limit: { max: 1, per: 'everyone', window: 'week' } };
    const byEmail = { ...everyone, people: ['ann@example.com'] };
    const before = keyOf([byEmail], { accounts: new Map([['ann@example.com', ALICE]]) });
    expect(keyOf([{ ...everyone, people: [ALICE] }])).toBe(before);
    expect(keyOf([byEmail], { accounts: new Map([['ann@example.com', BOB]]), call: { userId: BOB } })).not.toBe(before);
  });

  it('counts a call once on a limit two rules of one definition both state', () => {
    const limits = limitsOf([CAP, { ...CAP, name: 'same-cap' }]);
    expect(limits.map((limit) => limit.rule)).toEqual(['add-cap']);
  });
});
