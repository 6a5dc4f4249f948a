import { AuditReader, type RecordedToolCall } from '../../../src/application/audit/ports/audit-reader.port';
import { DRY_RUN_EXAMPLES_MAX, DryRunPolicyUseCase } from '../../../src/application/policy/dry-run-policy.use-case';
import { BuiltInPolicy, PolicyBasis } from '../../../src/application/policy/policy-provider';
import { FixedPolicyAccounts } from '../../fakes/policy';
import { TODO_TOOLS } from '../../../src/application/todo/tools/todo-tool-definitions';
import { defaultPolicy, policyCatalogue } from '../../../src/domain/policy/default-policy';
import { PolicyRefusedError } from '../../../src/domain/policy/policy-refused-error';

const ALICE = '11111111-1111-4111-8111-111111111111';
const BOB = '22222222-2222-4222-8222-222222222222';
const CAROL = '33333333-3333-4333-8333-333333333333';
const DAN = '44444444-4444-4444-8444-444444444444';

/** The recorded calls as the reader would give them (newest first), and whether they were read. */
class FakeAuditReader extends AuditReader {
  readonly asked: number[] = [];

  constructor(private readonly calls: RecordedToolCall[]) {
    super();
  }

  recentToolCalls(limit: number): Promise<RecordedToolCall[]> {
    this.asked.push(limit);
    return Promise.resolve([...this.calls].sort((a, b) => b.seq - a.seq).slice(0, limit));
  }

  list = unused;
  get = unused;
  listDecisions = unused;
  getDecision = unused;
  export = unused;
  verify = unused;
  prunedBefore = unused;
  firstUnexplainedErasure = unused;
  latestCheckpoint = unused;
  checkpoints = unused;
  linksAt = unused;
  checkpointAt = unused;
  links = unused;
}

function unused(): never {
  throw new Error('a dry run reads only recentToolCalls');
}

let seq = 0;
/** A recorded call; `at` is minutes after 10:00 UTC on Monday 30 November 2026. */
function call(overrides: Partial<RecordedToolCall> & { minute?: number } = {}): RecordedToolCall {
  const { minute = 0, ...rest } = overrides;
  seq += 1;
  return {
    seq,
    createdAt: new Date(Date.UTC(2026, 10, 30, 10, minute)),
    source: 'chat',
    actorId: ALICE,
    actorEmail: 'alice@example.com',
    actorRole: 'user',
    tool: 'add_task',
    arguments: { title: 'Buy milk' },
    status: 'succeeded',
    items: 1,
    ...rest,
  };
}

function dryRunOn(calls: RecordedToolCall[], accounts: Record<string, string> = {}) {
  const catalogue = policyCatalogue(TODO_TOOLS);
  const basis = new PolicyBasis(catalogue, defaultPolicy(catalogue, 'confirm-in-chat'));
  const reader = new FakeAuditReader(calls);
  const useCase = new DryRunPolicyUseCase(basis, new BuiltInPolicy(basis), new FixedPolicyAccounts({}, accounts), reader);
  return {
    reader,
    run: (rules: unknown[], limit = 1000) => useCase.execute({ candidate: { rules }, limit }),
  };
}

const NO_DELETES = { name: 'no-deletes', tools: ['delete_task'], effect: 'deny', reason: 'Nobody deletes tasks this week.' };
const addCap = (max: number, per: 'person' | 'everyone' = 'person', window = 'hour', name = 'add-cap') => ({
  name,
  tools: ['add_task'],
  effect: 'limit',
  limit: { max, per, window },
});

describe('a dry run of a candidate policy', () => {
  it('counts every call once, and groups the changes by from, to and the deciding rule, with examples newest first', async () => {
    const calls = [
      call({ minute: 1 }),
      call({ minute: 2, tool: 'delete_task', arguments: { number: 1 }, status: 'confirmation_required' }),
      call({ minute: 3, tool: 'delete_task', arguments: { tasks: [{ number: 1, title: 'Buy milk' }] }, status: 'pending' }),
      call({ minute: 4, tool: 'list_tasks', arguments: {} }),
      call({ minute: 5, source: 'mcp', actorId: BOB, tool: 'delete_task', arguments: { number: 2 }, status: 'confirmation_required' }),
    ];
    const { run, reader } = dryRunOn(calls);

    const report = await run([NO_DELETES]);

    expect(reader.asked).toEqual([1000]);
    expect(report).toMatchObject({
      versionInForce: 0,
      calls: 5,
      limit: 1000,
      from: calls[0].createdAt,
      to: calls[4].createdAt,
      changed: 3,
      effects: {
        now: { allow: 2, 'ask-person': 3, 'ask-reviewer': 0, limit: 0, deny: 0 },
        candidate: { allow: 2, 'ask-person': 0, 'ask-reviewer': 0, limit: 0, deny: 3 },
      },
    });
    expect(report.changes).toEqual([
      {
        from: 'ask-person',
        to: 'deny',
        rule: 'no-deletes',
        calls: 3,
        examples: [calls[4], calls[2], calls[1]].map((c) => ({
          seq: c.seq,
          at: c.createdAt,
          source: c.source,
          tool: 'delete_task',
          actorId: c.actorId,
          actorEmail: c.actorEmail,
          now: { effect: 'ask-person', rule: 'destruction-needs-the-person' },
          candidate: { effect: 'deny', rule: 'no-deletes' },
        })),
      },
    ]);
    // Never the arguments: they may hold personal data.
    expect(JSON.stringify(report)).not.toContain('Buy milk');
  });

  it('decides each call on what its row recorded it touched, a scope counted; an older row on the tasks its arguments name', async () => {
    const calls = [
      // Recorded with the tasks its scope resolved to.
      call({ minute: 1, source: 'mcp', tool: 'delete_task', arguments: { scope: 'all' }, status: 'pending', items: 6 }),
      call({ minute: 2, source: 'mcp', tool: 'delete_task', arguments: { number: 3 }, status: 'pending', items: 1 }),
      // Rows from before the count was recorded.
      call({ minute: 3, source: 'mcp', tool: 'delete_task', arguments: { numbers: [1, 2, 2, 4, 5] }, status: 'pending', items: null }),
      call({
        minute: 4,
        source: 'mcp',
        tool: 'delete_task',
        arguments: { tasks: [{ number: 1 }, { number: 2 }] },
        status: 'pending',
        items: null,
      }),
    ];
    const report = await dryRunOn(calls).run([
      { name: 'few', tools: ['delete_task'], when: { items: { atMost: 3 } }, effect: 'allow' },
      { name: 'no-mass-deletes', tools: ['delete_task'], effect: 'deny', reason: 'Never more than 3 at once.' },
    ]);
    expect(report.changes.map((change) => [change.rule, change.examples.map((example) => example.seq)])).toEqual([
      ['few', [calls[3].seq, calls[1].seq]],
      ['no-mass-deletes', [calls[2].seq, calls[0].seq]],
    ]);
  });

  it(`keeps the newest ${DRY_RUN_EXAMPLES_MAX} examples of a change, and reads only as many calls as asked`, async () => {
    const calls = Array.from({ length: 30 }, (_, i) => call({ minute: i, tool: 'delete_task', arguments: { number: 1 } }));
    const { run, reader } = dryRunOn(calls);

    const report = await run([NO_DELETES], 25);

    expect(reader.asked).toEqual([25]);
    expect(report).toMatchObject({ calls: 25, changed: 25, from: calls[5].createdAt, to: calls[29].createdAt });
    expect(report.changes[0].examples.map((example) => example.seq)).toEqual(
      calls
        .slice(10)
        .reverse()
        .map((c) => c.seq),
    );
  });

  it('counts a limit in time order over the sample, per person, in windows that open at their first call', async () => {
    // Given newest first by seq, but replayed by time: Alice's 10:00, 10:10 fill her window
    // of 10:00–11:00, her 10:20 and 10:30 are over it, 11:05 opens a new one; Bob has his own.
    const calls = [
      call({ minute: 30 }),
      call({ minute: 10 }),
      call({ minute: 0 }),
      call({ minute: 20 }),
      call({ minute: 25, actorId: BOB, actorEmail: 'bob@example.com' }),
      call({ minute: 65 }),
    ];
    const { run } = dryRunOn(calls);

    const report = await run([addCap(2)]);

    expect(report.changed).toBe(2);
    expect(report.effects.candidate).toMatchObject({ allow: 4, limit: 2 });
    expect(report.changes).toEqual([expect.objectContaining({ from: 'allow', to: 'limit', rule: 'add-cap', calls: 2 })]);
    expect(report.changes[0].examples.map((example) => example.at.toISOString())).toEqual([
      '2026-11-30T10:30:00.000Z',
      '2026-11-30T10:20:00.000Z',
    ]);
  });

  it('takes back what a call counted against its other limits when one of them stops it, as the database does', async () => {
    // Everyone: 3 a day; each person: 1 a day. Alice's second call is over her own limit and
    // is taken back from everyone's, so Carol's call still fits and only Dan's is over it.
    const calls = [
      call({ minute: 0 }),
      call({ minute: 1 }),
      call({ minute: 2, actorId: BOB }),
      call({ minute: 3, actorId: CAROL }),
      call({ minute: 4, actorId: DAN }),
    ];
    const { run } = dryRunOn(calls);

    const report = await run([addCap(3, 'everyone', 'day', 'everyone-cap'), addCap(1, 'person', 'day', 'person-cap')]);

    expect(report.changes.map(({ from, to, rule, calls: n }) => ({ from, to, rule, n }))).toEqual([
      { from: 'allow', to: 'limit', rule: 'everyone-cap', n: 1 },
      { from: 'allow', to: 'limit', rule: 'person-cap', n: 1 },
    ]);
    expect(report.changes.find((change) => change.rule === 'everyone-cap')?.examples[0].actorId).toBe(DAN);
  });

  it('counts a call against its limits only where it would run: not a dry run that put it to the person', async () => {
    const rules = [
      { name: 'delete-cap', tools: ['delete_task'], effect: 'limit', limit: { max: 1, per: 'person', window: 'day' } },
      { name: 'ask-first', tools: ['delete_task'], sources: ['chat', 'mcp'], effect: 'ask-person' },
    ];
    const calls = [
      call({ minute: 0, tool: 'delete_task', status: 'confirmation_required' }),
      // Refused over MCP, whose client could not be asked: it did not run either.
      call({ minute: 1, source: 'mcp', tool: 'delete_task', status: 'rejected' }),
      call({ minute: 2, tool: 'delete_task', status: 'pending' }),
      call({ minute: 3, tool: 'delete_task', status: 'confirmation_required' }),
      call({ minute: 4, tool: 'delete_task', status: 'pending' }),
    ];
    const { run } = dryRunOn(calls);

    const report = await run(rules);

    expect(report.changes).toEqual([expect.objectContaining({ from: 'ask-person', to: 'limit', rule: 'delete-cap', calls: 1 })]);
    expect(report.changes[0].examples[0].seq).toBe(calls[4].seq);
  });

  it("decides each call at its recorded time, with its actor's role", async () => {
    const calls = [
      call({ minute: 0 }),
      call({ createdAt: new Date('2026-11-30T23:30:00Z') }),
      call({ createdAt: new Date('2026-11-30T23:40:00Z'), actorId: BOB, actorRole: 'admin' }),
    ];
    const { run } = dryRunOn(calls);

    const report = await run([
      {
        name: 'not-at-night',
        tools: ['add_task'],
        roles: ['user'],
        when: { hours: { from: '22:00', to: '06:00' } },
        effect: 'deny',
        reason: 'Sleep.',
      },
    ]);

    expect(report.changed).toBe(1);
    expect(report.changes[0].examples.map((example) => example.seq)).toEqual([calls[1].seq]);
  });

  it('names people by their account, and refuses an email that is no account’s with the others, reading nothing', async () => {
    const calls = [call({ minute: 0 }), call({ minute: 1, actorId: BOB })];
    const { run, reader } = dryRunOn(calls, { 'bob@example.com': BOB });

    const report = await run([{ name: 'not-bob', tools: ['add_task'], people: ['Bob@Example.com'], effect: 'deny', reason: 'No.' }]);
    expect(report.changes).toEqual([expect.objectContaining({ from: 'allow', to: 'deny', rule: 'not-bob', calls: 1 })]);
    expect(report.changes[0].examples[0].actorId).toBe(BOB);

    const before = reader.asked.length;
    const refusal = await run([{ name: 'not-eve', tools: ['add_task'], people: ['eve@example.com'], effect: 'deny', reason: 'No.' }]).catch(
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(PolicyRefusedError);
    expect((refusal as PolicyRefusedError).problems).toEqual([
      { position: 1, rule: 'not-eve', field: 'rules[1].people[0]', message: "'eve@example.com' is no account's email" },
    ]);
    expect(reader.asked.length).toBe(before);
  });

  it('refuses a malformed candidate with every problem at once', async () => {
    const { run, reader } = dryRunOn([call()]);

    const refusal = (await run([
      { name: 'x', tools: ['no_such_tool'], effect: 'deny', reason: 'No.' },
      { name: 'cap', tools: ['add_task'], effect: 'limit', limit: { max: 0, per: 'person', window: 'day' } },
    ]).catch((error: unknown) => error)) as PolicyRefusedError;

    expect(refusal).toBeInstanceOf(PolicyRefusedError);
    expect(refusal).toMatchObject({ code: 'POLICY.INVALID', kind: 'validation' });
    expect(refusal.problems.map((problem) => [problem.position, problem.field])).toEqual([
      [1, 'rules[1].tools[0]'],
      [2, 'rules[2].limit.max'],
    ]);
    expect(refusal.message).toMatch(/^The policy has 2 problems; the first: rule 1 \('x'\): rules\[1\]\.tools\[0\]/);
    expect(reader.asked).toEqual([]);
  });
});
