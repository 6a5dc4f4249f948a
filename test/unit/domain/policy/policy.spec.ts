import { TODO_TOOLS } from '../../../../src/application/todo/tools/todo-tool-definitions';
import { callFacts, CompiledPolicy, peopleNamed, unknownPeople } from '../../../../src/domain/policy/compiled-policy';
import { defaultPolicy, policyCatalogue } from '../../../../src/domain/policy/default-policy';
import { globMatches } from '../../../../src/domain/policy/glob';
import type { PolicyCall, PolicyDocument } from '../../../../src/domain/policy/policy';
import { problemInWords, readPolicy } from '../../../../src/domain/policy/policy-document';

const catalogue = policyCatalogue(TODO_TOOLS);
const ALICE = '11111111-1111-4111-8111-111111111111';
const BOB = '22222222-2222-4222-8222-222222222222';
const MONDAY_NOON = new Date('2026-11-30T12:00:00Z');

function read(rules: unknown[]): PolicyDocument {
  const reading = readPolicy({ rules }, catalogue);
  if (!reading.ok) throw new Error(reading.problems.map(problemInWords).join('\n'));
  return reading.document;
}

function problems(input: unknown): string[] {
  const reading = readPolicy(input, catalogue);
  return reading.ok ? [] : reading.problems.map(problemInWords);
}

function call(overrides: Partial<PolicyCall> = {}): PolicyCall {
  return { tool: 'delete_task', source: 'chat', userId: ALICE, targets: { items: 1, recipient: null }, at: MONDAY_NOON, ...overrides };
}

describe('the default policy is the built-in rules', () => {
  it('asks the person before a destructive call from the chat or MCP, and lets everything else run', () => {
    const policy = new CompiledPolicy(0, defaultPolicy(catalogue, 'confirm-in-chat'), catalogue);
    expect(policy.evaluate(call({ source: 'chat' }))).toMatchObject({
      effect: 'ask-person',
      rule: 'destruction-needs-the-person',
      position: 1,
    });
    expect(policy.evaluate(call({ source: 'mcp' }))).toMatchObject({ effect: 'ask-person' });
    expect(policy.evaluate(call({ tool: 'complete_task' }))).toEqual({
      version: 0,
      rule: null,
      position: null,
      effect: 'allow',
      limits: [],
      items: 1,
    });
    expect(policy.evaluate(call({ tool: 'send_email', source: 'outreach', targets: { items: 1, recipient: 'a@b.c' } })).effect).toBe(
      'allow',
    );
  });

  it("lets the person's own requests over the REST API run: the built-in question is the chat's and MCP's", () => {
    const policy = new CompiledPolicy(0, defaultPolicy(catalogue, 'confirm-in-chat'), catalogue);
    expect(policy.evaluate(call({ source: 'api' }))).toMatchObject({ effect: 'allow', rule: null });
  });

  it('knows which tools the REST API changes tasks with: those that change tasks, not the reads', () => {
    const api = catalogue.filter((tool) => tool.sources.includes('api')).map((tool) => tool.name);
    expect(api.sort()).toEqual(['add_task', 'complete_task', 'delete_task', 'update_task']);
  });

  it('lets MCP clients destroy unasked only when the operator allowed it, and still asks in the chat', () => {
    const policy = new CompiledPolicy(0, defaultPolicy(catalogue, 'allow'), catalogue);
    expect(policy.evaluate(call({ source: 'mcp' }))).toMatchObject({ effect: 'allow', rule: 'mcp-destroys-unasked' });
    expect(policy.evaluate(call({ source: 'chat' }))).toMatchObject({ effect: 'ask-person' });
  });

  it('reads back as a valid policy (it can be exported and imported unchanged)', () => {
    for (const mode of ['confirm-in-chat', 'allow'] as const) {
      const document = defaultPolicy(catalogue, mode);
      expect(readPolicy(JSON.parse(JSON.stringify(document)), catalogue)).toEqual({ ok: true, document });
    }
  });
});

describe('a rule matches a call by tool, source, person, role, targets and time', () => {
  it('decides by the first rule that ends evaluation, and collects the limits matched before it', () => {
    const policy = new CompiledPolicy(
      4,
      read([
        { name: 'delete-cap', tools: ['delete_task'], effect: 'limit', limit: { max: 20, per: 'person', window: 'day' } },
        { name: 'everyone-cap', tools: ['*_task'], effect: 'limit', limit: { max: 1000, per: 'everyone', window: 'hour' } },
        { name: 'ask', tools: ['delete_task'], effect: 'ask-person' },
      ]),
      catalogue,
    );
    const decision = policy.evaluate(call());
    expect(decision).toMatchObject({ version: 4, rule: 'ask', position: 3, effect: 'ask-person' });
    expect(decision.limits).toEqual([
      {
        rule: 'delete-cap',
        position: 1,
        max: 20,
        window: 'day',
        windowMs: 86_400_000,
        key: expect.stringContaining(`"subject":"${ALICE}"`),
      },
      { rule: 'everyone-cap', position: 2, max: 1000, window: 'hour', windowMs: 3_600_000, key: expect.stringContaining('"subject":"*"') },
    ]);
    expect(policy.evaluate(call({ tool: 'add_task' })).limits.map((limit) => limit.rule)).toEqual(['everyone-cap']);
  });

  it('matches people by account id or by email (resolved to the account), and roles by the caller role', () => {
    const document = read([
      { name: 'bob-no-deletes', tools: ['delete_task'], people: ['Bob@Example.com'], effect: 'deny', reason: 'Bob may not delete.' },
      { name: 'admins-only-edit', tools: ['update_task'], roles: ['user'], effect: 'deny', reason: 'Only admins edit.' },
    ]);
    expect(peopleNamed(document)).toEqual(['bob@example.com']);
    const policy = new CompiledPolicy(1, document, catalogue, new Map([['bob@example.com', BOB]]));
    expect(policy.evaluate(call({ userId: BOB }))).toMatchObject({ effect: 'deny', reason: 'Bob may not delete.' });
    expect(policy.evaluate(call({ userId: ALICE })).effect).toBe('allow');
    expect(policy.readsRoles).toBe(true);
    expect(policy.evaluate(call({ tool: 'update_task', role: 'user' })).effect).toBe('deny');
    expect(policy.evaluate(call({ tool: 'update_task', role: 'admin' })).effect).toBe('allow');
    expect(unknownPeople(document, new Map())).toEqual([
      { position: 1, rule: 'bob-no-deletes', field: 'rules[1].people[0]', message: "'bob@example.com' is no account's email" },
    ]);
  });

  it('tests the recipient domain, and takes an address whose domain cannot be read as outside every list', () => {
    const policy = new CompiledPolicy(
      1,
      read([
        {
          name: 'external-email-review',
          tools: ['send_email'],
          when: { recipientDomain: { notIn: ['example.com', '*.example.com'] } },
          effect: 'ask-reviewer',
          reviewer: { timeoutMinutes: 60, fallback: 'reject' },
        },
      ]),
      catalogue,
    );
    const email = (to: string | null) =>
      policy.evaluate(call({ tool: 'send_email', source: 'outreach', targets: { items: 1, recipient: to } })).effect;
    expect(email('lead@example.com')).toBe('allow');
    expect(email('Lead@Sales.EXAMPLE.com')).toBe('allow');
    expect(email('lead@example.org')).toBe('ask-reviewer');
    expect(email('lead@example.com.evil.io')).toBe('ask-reviewer');
    expect(email('not-an-address')).toBe('ask-reviewer');
    expect(email(null)).toBe('ask-reviewer');
  });

  it("reads a reviewer whose fallback is escalate, and hands the rule's reviewer to the call it decides", () => {
    const reviewer = { timeoutMinutes: 30, fallback: 'escalate' };
    const document = read([{ name: 'email-review', tools: ['send_email'], effect: 'ask-reviewer', reviewer }]);
    expect(document.rules[0].reviewer).toEqual(reviewer);
    const decision = new CompiledPolicy(1, document, catalogue).evaluate(
      call({ tool: 'send_email', source: 'outreach', targets: { items: 1, recipient: 'lead@example.org' } }),
    );
    expect(decision).toMatchObject({ effect: 'ask-reviewer', rule: 'email-review', reviewer });
  });

  it('counts the items a call touches, and holds times in UTC, across midnight too', () => {
    const policy = new CompiledPolicy(
      1,
      read([
        { name: 'big-deletes', tools: ['delete_task'], when: { items: { over: 3 } }, effect: 'deny', reason: 'Too many at once.' },
        { name: 'night', tools: ['add_task'], when: { hours: { from: '22:00', to: '06:00' } }, effect: 'deny', reason: 'Not at night.' },
        { name: 'weekend', tools: ['complete_task'], when: { days: ['sat', 'sun'] }, effect: 'deny', reason: 'Not on weekends.' },
      ]),
      catalogue,
    );
    const deleting = (items: number) => call({ targets: { items, recipient: null } });
    expect(policy.evaluate(deleting(3))).toMatchObject({ effect: 'allow', items: 3 });
    expect(policy.evaluate(deleting(4))).toMatchObject({ effect: 'deny', items: 4 });
    const add = (at: string) => policy.evaluate(call({ tool: 'add_task', at: new Date(at) })).effect;
    expect(add('2026-11-30T23:30:00Z')).toBe('deny');
    expect(add('2026-11-30T05:59:00Z')).toBe('deny');
    expect(add('2026-11-30T06:00:00Z')).toBe('allow');
    expect(add('2026-11-30T21:59:00Z')).toBe('allow');
    expect(policy.evaluate(call({ tool: 'complete_task', at: new Date('2026-11-29T10:00:00Z') })).effect).toBe('deny');
    expect(policy.evaluate(call({ tool: 'complete_task', at: MONDAY_NOON })).effect).toBe('allow');
  });

  it("reads the facts a rule tests from the call's resolved targets, the recipient's domain in canonical form", () => {
    expect(callFacts({ items: 2, recipient: null })).toEqual({ items: 2, recipientDomain: null });
    expect(callFacts({ items: 1, recipient: ' Ann@Mail.Example.COM. ' })).toEqual({ items: 1, recipientDomain: 'mail.example.com' });
    expect(callFacts({ items: 1, recipient: 'a@Bücher.de' })).toEqual({ items: 1, recipientDomain: 'xn--bcher-kva.de' });
    expect(callFacts({ items: 1, recipient: 'a@xn--zz.com' })).toEqual({ items: 1, recipientDomain: '' });
  });

  it('reads a domain glob in its canonical form, so a rule written in Unicode or in A-labels matches both spellings', () => {
    const document = read([
      {
        name: 'no-competitors',
        tools: ['send_email'],
        when: { recipientDomain: { in: ['*.bücher.de', 'XN--MNCHEN-3YA.example', 'competitor\u3002com'] } },
        effect: 'deny',
        reason: 'Not them.',
      },
    ]);
    expect(document.rules[0].when?.recipientDomain?.in).toEqual(['*.xn--bcher-kva.de', 'xn--mnchen-3ya.example', 'competitor.com']);
    const policy = new CompiledPolicy(1, document, catalogue);
    const email = (to: string) =>
      policy.evaluate(call({ tool: 'send_email', source: 'outreach', targets: { items: 1, recipient: to } })).effect;
    for (const to of ['a@mail.bücher.de', 'a@mail.xn--bcher-kva.de', 'h@münchen.example', 'b@competitor\uFF61com']) {
      expect({ to, effect: email(to) }).toEqual({ to, effect: 'deny' });
    }
    expect(email('a@bucher.de')).toBe('allow');
  });
});

describe('a malformed policy is refused whole, each problem with its rule position and why', () => {
  it.each([
    [{ name: 'x', tools: ['delet_task'], effect: 'allow' }, "rule 1 ('x'): rules[1].tools[0] 'delet_task' is no tool's name"],
    [{ name: 'x', tools: ['send_*[a]'], effect: 'allow' }, 'must be a tool name or a glob of them'],
    [{ name: 'x', tools: ['zz*'], effect: 'allow' }, "'zz*' matches no tool"],
    [
      { name: 'x', tools: ['send_email'], sources: ['chat'], effect: 'deny', reason: 'r' },
      'can never match: send_email is called from outreach',
    ],
    [
      { name: 'x', tools: ['add_task'], when: { recipientDomain: { in: ['a.com'] } }, effect: 'allow' },
      'can never match: no tool the rule names has recipientDomain',
    ],
    [{ name: 'x', tools: ['add_task'], when: { hours: { from: '09:00', to: '09:00' } }, effect: 'allow' }, 'is no time at all'],
    [
      { name: 'x', tools: ['add_task'], when: { items: { over: 5, atMost: 5 } }, effect: 'allow' },
      'can never match: no count is over 5 and at most 5',
    ],
    [
      { name: 'x', tools: ['add_task'], effect: 'allow', limit: { max: 2, per: 'person', window: 'day' } },
      "belongs to the limit effect, and this rule's effect is 'allow'",
    ],
    [{ name: 'x', tools: ['add_task'], effect: 'deny' }, 'is required for deny'],
    [
      { name: 'x', tools: ['list_tasks'], sources: ['api'], effect: 'deny', reason: 'r' },
      'can never match: list_tasks is called from chat and mcp',
    ],
    [{ name: 'x', tools: ['delete_task'], sources: ['api'], effect: 'ask-person' }, "'ask-person' asks nobody over the API"],
    [{ name: 'x', tools: ['add_task'], effect: 'ask-person' }, "'ask-person' is not possible for add_task"],
    [
      { name: 'x', tools: ['delete_task'], effect: 'ask-reviewer', reviewer: { timeoutMinutes: 5, fallback: 'reject' } },
      "'ask-reviewer' is not possible for delete_task",
    ],
    [
      { name: 'x', tools: ['send_email'], effect: 'ask-reviewer', reviewer: { timeoutMinutes: 5, fallback: 'ignore' } },
      'reviewer.fallback must be one of reject, escalate',
    ],
    [
      { name: 'x', tools: ['add_task'], effect: 'limit', limit: { max: 0, per: 'person', window: 'day' } },
      'limit.max must be a whole number from 1',
    ],
    [{ name: 'x', tools: ['add_task'], effect: 'allow', priority: 1 }, 'rules[1].priority is not a field of a rule'],
    [{ name: 'Bad Name', tools: ['add_task'], effect: 'allow' }, 'rules[1].name must be 1 to 64 lowercase letters'],
    ['not a rule', 'rule 1: rules[1] must be an object'],
  ])('%j', (rule, message) => {
    expect(problems({ rules: [rule] }).join('\n')).toContain(message);
  });

  it('refuses a rule an earlier one already decides, and names a conflict when their effects differ', () => {
    const first = { name: 'ask', tools: ['delete_task'], effect: 'ask-person' };
    expect(problems({ rules: [first, { name: 'again', tools: ['delete_*'], sources: ['chat'], effect: 'ask-person' }] })).toEqual([
      "rule 2 ('again'): rules[2] can never match: rule 1 ('ask') comes first and already decides every call this one matches",
    ]);
    expect(problems({ rules: [first, { name: 'deny', tools: ['delete_task'], effect: 'deny', reason: 'No.' }] })).toEqual([
      "rule 2 ('deny'): rules[2] conflicts with rule 1 ('ask'): both match the same calls, and rule 1 comes first with 'ask-person' where this one says 'deny'",
    ]);
    // Narrower first, wider after: both can apply.
    expect(
      problems({
        rules: [
          { ...first, sources: ['mcp'] },
          { name: 'deny', tools: ['delete_task'], effect: 'deny', reason: 'No.' },
        ],
      }),
    ).toEqual([]);
    // A limit never ends evaluation, so it shadows nothing.
    expect(
      problems({ rules: [{ name: 'cap', tools: ['*'], effect: 'limit', limit: { max: 1, per: 'everyone', window: 'minute' } }, first] }),
    ).toEqual([]);
  });

  it('refuses duplicate names, unknown document fields, and more rules than the bound; reports every problem at once', () => {
    const rule = { name: 'a', tools: ['add_task'], effect: 'allow' };
    expect(problems({ rules: [rule, { ...rule, tools: ['list_tasks'] }] })).toEqual([
      "rule 2 ('a'): rules[2].name 'a' is also rule 1's name; names are unique",
    ]);
    expect(problems({ rules: [], version: 3 })).toEqual(['the policy: version is not a field of a policy (only `rules`)']);
    expect(problems({ rules: Array.from({ length: 501 }, () => rule) })[0]).toContain('holds 501 rules; at most 500');
    expect(
      problems({
        rules: [
          { name: 'a', tools: ['nope'], effect: 'maybe' },
          { name: 'b', tools: [], effect: 'allow' },
        ],
      }),
    ).toHaveLength(3);
    expect(problems(null)).toEqual(['the policy: policy must be an object with a `rules` list']);
  });
});

describe('globs', () => {
  it.each([
    ['*', 'delete_task', true],
    ['*_task', 'delete_task', true],
    ['d?lete_task', 'delete_task', true],
    ['delete', 'delete_task', false],
    ['*.example.com', 'a.example.com', true],
    ['*.example.com', 'example.com', false],
    ['a*a*a*a*a*b', 'a'.repeat(5000), false],
  ])('%s against %.20s: %s', (pattern, text, expected) => {
    expect(globMatches(pattern, text)).toBe(expected);
  });
});
