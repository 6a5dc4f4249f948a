import { ExecuteToolCallUseCase } from '../../../src/application/agent/execute-tool-call.use-case';
import type { ToolCallContext } from '../../../src/application/agent/ports/tool-gateway.port';
import type { DryRunResult } from '../../../src/application/agent/ports/toolbox.port';
import { AddTaskUseCase } from '../../../src/application/todo/add-task.use-case';
import { CHAT_ASKS_BEFORE_DESTRUCTION } from '../../../src/domain/policy/default-policy';
import type { PolicyRule } from '../../../src/domain/policy/policy';
import { AjvSchemaValidator } from '../../../src/infrastructure/validation/ajv-schema-validator';
import { FixedClock } from '../../fakes/fixed-clock';
import { InMemoryTaskRepository } from '../../fakes/in-memory-task.repository';
import { policyGate, policyOf } from '../../fakes/policy';
import { RecordingAuditLog } from '../../fakes/recording-audit-log';
import { RecordingMetrics } from '../../fakes/recording-metrics';
import { RecordingUnitOfWork } from '../../fakes/recording-unit-of-work';
import { todoToolboxOn } from '../../fakes/todo-toolbox';

const USER = 'u1';
const DELETES_RUN: PolicyRule = { name: 'deletes-run', tools: ['delete_task'], effect: 'allow' };

/** The real executor and todo toolbox over two tasks in memory, under `rules`. */
async function executorUnder(rules: readonly PolicyRule[]) {
  const tasks = new InMemoryTaskRepository();
  const clock = new FixedClock();
  for (const title of ['Buy milk', 'Dentist']) await new AddTaskUseCase(tasks, clock).execute({ userId: USER, title });
  const toolbox = todoToolboxOn(tasks, clock);
  const unitOfWork = new RecordingUnitOfWork();
  const audit = new RecordingAuditLog([], unitOfWork);
  const sut = new ExecuteToolCallUseCase(
    toolbox,
    audit,
    clock,
    new RecordingMetrics(),
    { mcpDestructiveTools: 'confirm-in-chat' },
    unitOfWork,
    new AjvSchemaValidator(),
    policyGate(policyOf(toolbox.definitions, rules, 4)),
  );
  const titles = () => tasks.tasks.map((task) => task.title);
  return { sut, audit, titles };
}

const as = (source: 'chat' | 'mcp', kind: 'run' | 'dry-run'): ToolCallContext => ({ userId: USER, source, mode: { kind } });

describe('the tools server enforces the decision for the door its call came through', () => {
  it('answers a dry run with whether the policy puts the call to the person: not over MCP under an allow, always in the chat', async () => {
    const { sut, audit, titles } = await executorUnder([DELETES_RUN]);
    const overMcp = await sut.execute({ tool: 'delete_task', arguments: { number: 1 }, context: as('mcp', 'dry-run') });
    expect(overMcp).toMatchObject({ ok: true, data: { asksThePerson: false } });
    const inChat = await sut.execute({ tool: 'delete_task', arguments: { number: 1 }, context: as('chat', 'dry-run') });
    expect(inChat).toMatchObject({ ok: true, data: { asksThePerson: true, prompt: expect.stringMatching(/'Buy milk'/) } });
    expect(((inChat as { data: DryRunResult }).data.arguments as { tasks: unknown[] }).tasks).toHaveLength(1);
    // A preview changes nothing; its row records what it found, not the server's answer.
    expect(titles()).toEqual(['Buy milk', 'Dentist']);
    expect(audit.rows.map((row) => [row.entry.source, row.status, row.entry.policy, row.outcome?.result])).toEqual([
      [
        'mcp',
        'confirmation_required',
        { version: 4, rule: 'deletes-run', effect: 'allow', items: 1 },
        expect.not.objectContaining({ asksThePerson: false }),
      ],
      [
        'chat',
        'confirmation_required',
        { version: 4, rule: CHAT_ASKS_BEFORE_DESTRUCTION, effect: 'ask-person', items: 1 },
        expect.not.objectContaining({ asksThePerson: true }),
      ],
    ]);
  });

  it('runs an MCP delete an allow rule lets through, audited once before and once after; a chat delete in run mode is refused unasked', async () => {
    const { sut, audit, titles } = await executorUnder([DELETES_RUN]);
    await expect(sut.asksThePerson('delete_task', { number: 2 }, { userId: USER, source: 'mcp' })).resolves.toBeNull();
    await expect(sut.asksThePerson('delete_task', { number: 2 }, { userId: USER, source: 'chat' })).resolves.toEqual({ policyVersion: 4 });
    await expect(sut.execute({ tool: 'delete_task', arguments: { number: 2 }, context: as('mcp', 'run') })).resolves.toMatchObject({
      ok: true,
    });
    await expect(sut.execute({ tool: 'delete_task', arguments: { number: 1 }, context: as('chat', 'run') })).resolves.toMatchObject({
      ok: false,
      code: 'CONFIRMATION_REQUIRED',
    });
    expect(titles()).toEqual(['Buy milk']);
    expect(audit.rows.map((row) => [row.entry.source, row.status, row.entry.policy?.rule])).toEqual([
      ['mcp', 'pending', 'deletes-run'],
      ['mcp', 'succeeded', 'deletes-run'],
      ['chat', 'rejected', CHAT_ASKS_BEFORE_DESTRUCTION],
    ]);
  });

  it('refuses a dry run under a deny before anyone is asked, with the rule and its reason', async () => {
    const { sut, titles } = await executorUnder([{ name: 'no-deletes', tools: ['delete_task'], effect: 'deny', reason: 'Not this week.' }]);
    await expect(sut.execute({ tool: 'delete_task', arguments: { number: 1 }, context: as('chat', 'dry-run') })).resolves.toEqual({
      ok: false,
      code: 'POLICY_DENIED',
      message: "This is not allowed here: Not this week. (Policy rule 'no-deletes'.)",
      details: { rule: 'no-deletes', version: 4, reason: 'Not this week.' },
    });
    expect(titles()).toEqual(['Buy milk', 'Dentist']);
  });
});
