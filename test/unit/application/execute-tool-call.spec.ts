import { ExecuteToolCallUseCase } from '../../../src/application/agent/execute-tool-call.use-case';
import { TODO_TOOL_ERRORS } from '../../../src/domain/todo/tool-errors';
import type { ToolResult } from '../../../src/application/agent/ports/tool-gateway.port';
import { type Resolution, type ResolvedCall, Toolbox } from '../../../src/application/agent/ports/toolbox.port';
import { TODO_TOOLS } from '../../../src/application/todo/tools/todo-tool-definitions';
import { TODO_WORDS } from '../../../src/application/todo/todo-words';
import type { McpDestructiveToolMode } from '../../../src/domain/agent/confirmation';
import type { ToolDefinition } from '../../../src/domain/agent/tools';
import { TASKS_PER_USER_MAX } from '../../../src/domain/todo/task';
import { FixedClock } from '../../fakes/fixed-clock';
import { RecordingMetrics } from '../../fakes/recording-metrics';
import { RecordingAuditLog } from '../../fakes/recording-audit-log';
import { RecordingUnitOfWork } from '../../fakes/recording-unit-of-work';
import { AjvSchemaValidator } from '../../../src/infrastructure/validation/ajv-schema-validator';
import type { PolicyProvider } from '../../../src/application/policy/policy-provider';
import { builtInPolicy, policyGate, policyOf } from '../../fakes/policy';
import { SCHEDULE_CALL } from '../../fixtures/schedule-call.tool';

class StubToolbox extends Toolbox {
  readonly definitions: readonly ToolDefinition[] = [...TODO_TOOLS, SCHEDULE_CALL];
  readonly errorWording = TODO_TOOL_ERRORS;
  readonly words = TODO_WORDS;
  readonly runs: { tool: string; dryRun: boolean; auditedBefore: number; inUnitOfWork: boolean }[] = [];
  constructor(
    private readonly audit: RecordingAuditLog,
    private readonly unitOfWork: RecordingUnitOfWork,
    private readonly answer: () => Promise<ToolResult>,
  ) {
    super();
  }
  resolve(tool: string, args: Record<string, unknown>): Promise<Resolution> {
    return Promise.resolve({ ok: true, call: { tool, targets: { items: 1, recipient: null }, plan: args } });
  }
  run(call: ResolvedCall, _: string, options: { dryRun: boolean }) {
    this.runs.push({ tool: call.tool, dryRun: options.dryRun, auditedBefore: this.audit.rows.length, inUnitOfWork: this.unitOfWork.open });
    return this.answer();
  }
}

function setup(
  answer: () => Promise<ToolResult> = () => Promise.resolve({ ok: true, data: { task: {} } }),
  mcpDestructiveTools: McpDestructiveToolMode = 'confirm-in-chat',
  policy?: (tools: readonly ToolDefinition[]) => PolicyProvider,
) {
  const unitOfWork = new RecordingUnitOfWork();
  const audit = new RecordingAuditLog([], unitOfWork);
  const toolbox = new StubToolbox(audit, unitOfWork, answer);
  const metrics = new RecordingMetrics();
  const sut = new ExecuteToolCallUseCase(
    toolbox,
    audit,
    new FixedClock(),
    metrics,
    { mcpDestructiveTools },
    unitOfWork,
    new AjvSchemaValidator(),
    policyGate(policy ? policy(toolbox.definitions) : builtInPolicy(toolbox.definitions, mcpDestructiveTools), {
      roles: { admin1: 'admin' },
    }),
  );
  return { audit, toolbox, metrics, unitOfWork, sut };
}

const context = { userId: 'u1', source: 'mcp' as const, mode: { kind: 'run' } as const };

describe(ExecuteToolCallUseCase.name, () => {
  it('commits a pending row before a mutating tool runs, then its write and the outcome row in one unit of work', async () => {
    const { sut, audit, toolbox, unitOfWork } = setup();
    await sut.execute({ tool: 'add_task', arguments: { title: 'x' }, context });
    expect(toolbox.runs).toEqual([{ tool: 'add_task', dryRun: false, auditedBefore: 1, inUnitOfWork: true }]);
    expect(audit.rows.map((r) => [r.seq, r.status, r.pendingSeq, r.inUnitOfWork])).toEqual([
      [1, 'pending', undefined, false],
      [2, 'succeeded', 1, true],
    ]);
    expect(unitOfWork.units).toBe(1);
  });

  it('records a call whose unit of work failed as failed, outside it, and counts it once', async () => {
    const { sut, audit, metrics } = setup(() => Promise.reject(new Error('connection lost')));
    await expect(sut.execute({ tool: 'add_task', arguments: { title: 'x' }, context })).rejects.toThrow('connection lost');
    expect(audit.rows.map((r) => [r.status, r.pendingSeq, r.outcome?.errorCode, r.inUnitOfWork])).toEqual([
      ['pending', undefined, undefined, false],
      ['failed', 1, 'INTERNAL', false],
    ]);
    expect(metrics.calls).toEqual([{ name: 'toolCall', args: ['add_task', 'failed', 0] }]);
  });

  it('writes one row for a read, and for a dry run, with no unit of work', async () => {
    const { sut, audit, unitOfWork } = setup();
    await sut.execute({ tool: 'list_tasks', arguments: {}, context });
    await sut.execute({ tool: 'delete_task', arguments: { number: 1 }, context: { ...context, mode: { kind: 'dry-run' } } });
    expect(audit.rows.map((r) => r.status)).toEqual(['succeeded', 'confirmation_required']);
    expect(unitOfWork.units).toBe(0);
  });

  it('refuses unknown tools and invalid arguments without running anything', async () => {
    const { sut, audit, toolbox } = setup();
    await expect(sut.execute({ tool: 'nope', arguments: {}, context })).resolves.toMatchObject({ ok: false, code: 'UNKNOWN_TOOL' });
    await expect(sut.execute({ tool: 'add_task', arguments: { title: 1, user_id: 'u2' }, context })).resolves.toMatchObject({
      ok: false,
      code: 'INVALID_ARGUMENTS',
    });
    expect(toolbox.runs).toEqual([]);
    expect(audit.rows.map((r) => [r.status, r.outcome?.errorCode, r.outcome?.errorMessage, r.entry.securityEvents.length])).toEqual([
      ['rejected', 'UNKNOWN_TOOL', "I couldn't do that. Please try rephrasing your request.", 0],
      ['rejected', 'INVALID_ARGUMENTS', "I couldn't understand that request. Please try rephrasing.", 1],
    ]);
  });

  it('records and counts a call the agent refused before sending it, with the arguments as recorded, and runs nothing', async () => {
    const { sut, audit, toolbox, metrics } = setup();
    const refusal = { code: 'MALFORMED_ARGUMENTS', message: 'not JSON', arguments: '{"title": "Fix' };
    const chat = { userId: 'u1', source: 'chat' as const, decisionId: 'd1' };
    await expect(
      sut.execute({ tool: 'add_task', arguments: {}, context: { ...chat, mode: { kind: 'refused', refusal } } }),
    ).resolves.toEqual({
      ok: false,
      code: 'MALFORMED_ARGUMENTS',
      message: 'not JSON',
    });
    await sut.execute({
      tool: 'made_up',
      arguments: {},
      context: { ...chat, mode: { kind: 'refused', refusal: { ...refusal, code: 'UNKNOWN_TOOL', arguments: {} } } },
    });
    expect(toolbox.runs).toEqual([]);
    expect(audit.rows.map((r) => [r.entry.tool, r.entry.arguments, r.entry.decisionId, r.status, r.outcome?.errorCode])).toEqual([
      ['add_task', '{"title": "Fix', 'd1', 'rejected', 'MALFORMED_ARGUMENTS'],
      ['made_up', {}, 'd1', 'rejected', 'UNKNOWN_TOOL'],
    ]);
    expect(metrics.calls).toEqual([
      { name: 'toolCall', args: ['add_task', 'rejected', null] },
      { name: 'toolCall', args: ['unknown', 'rejected', null] },
    ]);
  });

  it('tells the caller which argument broke which rule', async () => {
    const { sut } = setup();
    await expect(sut.execute({ tool: 'add_task', arguments: { title: '' }, context })).resolves.toMatchObject({
      ok: false,
      code: 'INVALID_ARGUMENTS',
      details: { field: 'title' },
    });
  });

  it('enforces a pattern and a format, naming the field and the rule, and runs nothing', async () => {
    const { sut, toolbox } = setup();
    const call = (args: object) => sut.execute({ tool: 'schedule_call', arguments: args, context });

    await expect(call({ phone: '555-0100', at: '2025-01-31T09:30:00Z' })).resolves.toEqual({
      ok: false,
      code: 'INVALID_ARGUMENTS',
      message: 'arguments.phone must match the pattern ^\\+[0-9]{7,15}$',
      details: { field: 'phone', rule: 'pattern' },
    });
    await expect(call({ phone: '+4420790001', at: 'next Tuesday', email: 'ada@' })).resolves.toEqual({
      ok: false,
      code: 'INVALID_ARGUMENTS',
      message: 'arguments.email must be an email address; arguments.at must be a date and time like 2025-01-31T09:30:00Z',
      details: { field: 'email', rule: 'format' },
    });
    expect(toolbox.runs).toEqual([]);

    await expect(call({ phone: '+4420790001', at: '2025-01-31T09:30:00Z', email: 'ada@example.com' })).resolves.toMatchObject({
      ok: true,
    });
    expect(toolbox.runs.map((run) => run.tool)).toEqual(['schedule_call']);
  });

  it('refuses at construction a tool whose schema has a keyword the validator does not know', () => {
    const toolbox = new StubToolbox(new RecordingAuditLog(), new RecordingUnitOfWork(), () => Promise.resolve({ ok: true, data: null }));
    const sloppy = { ...SCHEDULE_CALL, inputSchema: { ...SCHEDULE_CALL.inputSchema, minLenght: 1 } } as ToolDefinition;
    Object.defineProperty(toolbox, 'definitions', { value: [sloppy] });
    expect(
      () =>
        new ExecuteToolCallUseCase(
          toolbox,
          new RecordingAuditLog(),
          new FixedClock(),
          new RecordingMetrics(),
          { mcpDestructiveTools: 'confirm-in-chat' },
          new RecordingUnitOfWork(),
          new AjvSchemaValidator(),
          policyGate(builtInPolicy([sloppy])),
        ),
    ).toThrow(/unknown keyword: "minLenght"/);
  });

  it('records a tool error with its failure class and the sentence the person is told for it', async () => {
    const { sut, audit } = setup(() => Promise.resolve({ ok: false, code: 'TASK_NOT_FOUND', message: 'no', details: { number: 4 } }));
    await sut.execute({ tool: 'complete_task', arguments: { number: 4 }, context });
    expect(audit.rows[1]).toMatchObject({
      status: 'failed',
      outcome: {
        errorCode: 'TASK_NOT_FOUND',
        errorMessage: "I couldn't find task 4 in your list. Say 'show my tasks' to see their numbers.",
        result: { number: 4 },
      },
    });
  });

  it('refuses a destructive call over MCP by default, saying how the person can confirm, and audits the refusal', async () => {
    const { sut, audit, toolbox, metrics } = setup();
    jest.spyOn(toolbox, 'chatRequestFor').mockReturnValue('delete task 3');
    await expect(sut.execute({ tool: 'delete_task', arguments: { number: 3 }, context })).resolves.toEqual({
      ok: false,
      code: 'CONFIRMATION_REQUIRED',
      message:
        "This needs the person's confirmation and this connection cannot ask for it, so nothing was deleted. " +
        "To do it, the person can say 'delete task 3' in the Bridle chat (web console or chat API), then 'yes delete'.",
    });
    expect(toolbox.runs).toEqual([]);
    expect(audit.rows.map((r) => [r.status, r.outcome?.errorCode, r.entry.source, r.entry.arguments])).toEqual([
      ['rejected', 'CONFIRMATION_REQUIRED', 'mcp', { number: 3 }],
    ]);
    expect(metrics.calls).toEqual([{ name: 'toolCall', args: ['delete_task', 'rejected', null] }]);
  });

  it('refuses a destructive chat call that is neither a dry run nor confirmed', async () => {
    const { sut, toolbox } = setup();
    const chat = { userId: 'u1', source: 'chat' as const, mode: { kind: 'run' } as const };
    await expect(sut.execute({ tool: 'delete_task', arguments: { number: 3 }, context: chat })).resolves.toMatchObject({
      code: 'CONFIRMATION_REQUIRED',
    });
    await sut.execute({
      tool: 'delete_task',
      arguments: { tasks: [{ number: 3, title: 'x' }] },
      context: { ...chat, mode: { kind: 'confirmed' } },
    });
    expect(toolbox.runs).toEqual([{ tool: 'delete_task', dryRun: false, auditedBefore: 2, inUnitOfWork: true }]);
  });

  it('runs a destructive call over MCP once the operator allows it, audited before and after', async () => {
    const { sut, audit, toolbox } = setup(undefined, 'allow');
    await expect(sut.execute({ tool: 'delete_task', arguments: { scope: 'all' }, context })).resolves.toMatchObject({ ok: true });
    expect(toolbox.runs).toEqual([{ tool: 'delete_task', dryRun: false, auditedBefore: 1, inUnitOfWork: true }]);
    expect(audit.rows.map((r) => r.status)).toEqual(['pending', 'succeeded']);
  });

  it("checks a confirmed call against the server's own schema: the whole list, never offered to a model", async () => {
    const { sut, toolbox } = setup();
    const tasks = Array.from({ length: TASKS_PER_USER_MAX }, (_, i) => ({ number: i + 1, title: `Task ${i + 1}` }));
    const chat = { userId: 'u1', source: 'chat' as const, mode: { kind: 'run' } as const };
    await expect(
      sut.execute({ tool: 'delete_task', arguments: { tasks }, context: { ...chat, mode: { kind: 'confirmed' } } }),
    ).resolves.toMatchObject({
      ok: true,
    });
    await expect(
      sut.execute({ tool: 'delete_task', arguments: { tasks }, context: { ...chat, mode: { kind: 'dry-run' } } }),
    ).resolves.toMatchObject({
      ok: false,
      code: 'INVALID_ARGUMENTS',
    });
    await expect(
      sut.execute({
        tool: 'delete_task',
        arguments: { tasks: [...tasks, { number: 1001, title: 'x' }] },
        context: { ...chat, mode: { kind: 'confirmed' } },
      }),
    ).resolves.toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS' });
    expect(toolbox.runs).toHaveLength(1);
  });

  it('describes a destructive tool as the server treats it on each channel', () => {
    const description = (mode: McpDestructiveToolMode, source: 'chat' | 'mcp') =>
      setup(undefined, mode)
        .sut.definitionsFor(source)
        .find((tool) => tool.name === 'delete_task')?.description;
    expect(description('confirm-in-chat', 'chat')).toMatch(
      /^Delete tasks: .* Always needs the person's confirmation, which the server asks for\.$/,
    );
    expect(description('allow', 'chat')).toMatch(/which the server asks for\.$/);
    expect(description('confirm-in-chat', 'mcp')).toMatch(
      / Over this connection it deletes only after the person confirms in their MCP client.* A client that cannot be asked gets CONFIRMATION_REQUIRED/,
    );
    expect(description('allow', 'mcp')).toMatch(/ Over this connection it deletes at once, without asking the person/);
    expect(
      setup()
        .sut.definitionsFor('mcp')
        .find((tool) => tool.name === 'add_task'),
    ).toBe(TODO_TOOLS[0]);
  });

  it('records a crash as failed, then lets it propagate', async () => {
    const { sut, audit } = setup(() => Promise.reject(new TypeError('bug')));
    await expect(sut.execute({ tool: 'add_task', arguments: { title: 'x' }, context })).rejects.toThrow(TypeError);
    expect(audit.rows.map((r) => [r.status, r.outcome?.errorCode])).toEqual([
      ['pending', undefined],
      ['failed', 'INTERNAL'],
    ]);
  });
});

describe('the policy in force decides each call before its audit row', () => {
  const rules = [
    {
      name: 'delete-cap',
      tools: ['delete_task'],
      effect: 'limit' as const,
      limit: { max: 2, per: 'person' as const, window: 'day' as const },
    },
    { name: 'admins-edit', tools: ['update_task'], roles: ['user' as const], effect: 'deny' as const, reason: 'Only admins edit tasks.' },
    { name: 'ask-deletes', tools: ['delete_task'], sources: ['chat' as const, 'mcp' as const], effect: 'ask-person' as const },
  ];
  const withRules = () => setup(undefined, 'confirm-in-chat', (tools) => policyOf(tools, rules, 7));

  it("records the version, the deciding rule and its effect on every row, the built-in policy's too", async () => {
    const { sut, audit } = setup();
    await sut.execute({ tool: 'add_task', arguments: { title: 'x' }, context });
    await sut.execute({ tool: 'delete_task', arguments: { number: 1 }, context });
    expect(audit.rows.map((r) => [r.status, r.entry.policy])).toEqual([
      ['pending', { version: 0, rule: null, effect: 'allow', items: 1 }],
      ['succeeded', { version: 0, rule: null, effect: 'allow', items: 1 }],
      ['rejected', { version: 0, rule: 'destruction-needs-the-person', effect: 'ask-person', items: 1 }],
    ]);
  });

  it("refuses what a deny rule matches, with the admin's reason, and runs nothing; by role", async () => {
    const { sut, audit, toolbox } = withRules();
    const refused = await sut.execute({ tool: 'update_task', arguments: { number: 1, title: 'y' }, context });
    expect(refused).toEqual({
      ok: false,
      code: 'POLICY_DENIED',
      message: "This is not allowed here: Only admins edit tasks. (Policy rule 'admins-edit'.)",
      details: { rule: 'admins-edit', version: 7, reason: 'Only admins edit tasks.' },
    });
    await sut.execute({ tool: 'update_task', arguments: { number: 1, title: 'y' }, context: { ...context, userId: 'admin1' } });
    expect(toolbox.runs.map((run) => run.tool)).toEqual(['update_task']);
    expect(audit.rows.map((r) => [r.entry.actorId, r.status, r.outcome?.errorCode, r.outcome?.errorMessage, r.entry.policy?.rule])).toEqual(
      [
        [
          'u1',
          'rejected',
          'POLICY_DENIED',
          "This is not allowed here: Only admins edit tasks. (Policy rule 'admins-edit'.)",
          'admins-edit',
        ],
        ['admin1', 'pending', undefined, undefined, null],
        ['admin1', 'succeeded', undefined, undefined, null],
      ],
    );
  });

  it('counts what runs against a limit, never a dry run, and refuses the call past it naming the rule', async () => {
    const { sut, audit, toolbox } = withRules();
    const confirmed = { ...context, mode: { kind: 'confirmed' } as const };
    const dryRun = { ...context, mode: { kind: 'dry-run' } as const };
    const yes = (number: number) => ({ tasks: [{ number, title: `Task ${number}` }] });
    for (let i = 0; i < 3; i++) await sut.execute({ tool: 'delete_task', arguments: { number: 1 }, context: dryRun });
    await sut.execute({ tool: 'delete_task', arguments: yes(1), context: confirmed });
    await sut.execute({ tool: 'delete_task', arguments: yes(2), context: confirmed });
    const third = await sut.execute({ tool: 'delete_task', arguments: yes(3), context: confirmed });
    expect(third).toMatchObject({
      ok: false,
      code: 'POLICY_LIMIT_REACHED',
      details: { rule: 'delete-cap', version: 7, max: 2, window: 'day' },
    });
    expect((third as { message: string }).message).toMatch(
      /^That has reached its limit: at most 2 a day \(policy rule 'delete-cap'\)\. Nothing was done\./,
    );
    // Once the limit is reached, a dry run looks and refuses too: nobody is asked about a call that could not run.
    await expect(sut.execute({ tool: 'delete_task', arguments: { number: 3 }, context: dryRun })).resolves.toMatchObject({
      ok: false,
      code: 'POLICY_LIMIT_REACHED',
    });
    expect(toolbox.runs.map((run) => run.dryRun)).toEqual([true, true, true, false, false]);
    expect(audit.rows.at(-1)).toMatchObject({ status: 'rejected', entry: { policy: { version: 7, rule: 'delete-cap', effect: 'limit' } } });
    // Another person has a count of their own.
    await expect(sut.execute({ tool: 'delete_task', arguments: yes(1), context: { ...confirmed, userId: 'u2' } })).resolves.toMatchObject({
      ok: true,
    });
  });

  it('asks the person where the policy says so: a plain run is refused with where to confirm, the rule on the row', async () => {
    const { sut, audit } = withRules();
    await expect(sut.execute({ tool: 'delete_task', arguments: { number: 1 }, context })).resolves.toMatchObject({
      code: 'CONFIRMATION_REQUIRED',
    });
    expect(audit.rows.map((r) => r.entry.policy)).toEqual([{ version: 7, rule: 'ask-deletes', effect: 'ask-person', items: 1 }]);
    await expect(sut.asksThePerson('delete_task', { number: 1 }, context)).resolves.toEqual({ policyVersion: expect.any(Number) });
    await expect(sut.asksThePerson('add_task', { title: 'x' }, context)).resolves.toBeNull();
  });
});
