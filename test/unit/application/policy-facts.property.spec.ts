import fc from 'fast-check';
import { ExecuteToolCallUseCase } from '../../../src/application/agent/execute-tool-call.use-case';
import { AddTaskUseCase } from '../../../src/application/todo/add-task.use-case';
import { CompleteTaskUseCase } from '../../../src/application/todo/complete-task.use-case';
import type { PolicyRule, PolicyVerdict } from '../../../src/domain/policy/policy';
import type { Task } from '../../../src/domain/todo/task';
import { AjvSchemaValidator } from '../../../src/infrastructure/validation/ajv-schema-validator';
import { FixedClock } from '../../fakes/fixed-clock';
import { InMemoryTaskRepository } from '../../fakes/in-memory-task.repository';
import { todoToolboxOn } from '../../fakes/todo-toolbox';
import { policyGate, policyOf } from '../../fakes/policy';
import { RecordingAuditLog } from '../../fakes/recording-audit-log';
import { RecordingMetrics } from '../../fakes/recording-metrics';
import { RecordingUnitOfWork } from '../../fakes/recording-unit-of-work';

const USER = 'u1';
type Tool = 'delete_task' | 'complete_task' | 'update_task';
const WORDS = ['milk', 'dentist', 'rent', 'call', 'mum', 'plants'];
/** One validator for every world: it compiles each tool's schema once. */
const SCHEMAS = new AjvSchemaValidator();

interface Seed {
  readonly title: string;
  readonly completed: boolean;
}

/** The real executor and todo toolbox over tasks in memory, under `rules` (none: every call allowed). */
async function world(seeds: readonly Seed[], rules: readonly PolicyRule[]) {
  const tasks = new InMemoryTaskRepository();
  const clock = new FixedClock();
  const toolbox = todoToolboxOn(tasks, clock);
  for (const seed of seeds) {
    const task = await new AddTaskUseCase(tasks, clock).execute({ userId: USER, title: seed.title });
    if (seed.completed) await new CompleteTaskUseCase(tasks, clock).execute({ userId: USER, number: task.number });
  }
  const unitOfWork = new RecordingUnitOfWork();
  const audit = new RecordingAuditLog([], unitOfWork);
  const executor = new ExecuteToolCallUseCase(
    toolbox,
    audit,
    clock,
    new RecordingMetrics(),
    { mcpDestructiveTools: 'allow' },
    unitOfWork,
    SCHEMAS,
    policyGate(policyOf(toolbox.definitions, rules)),
  );
  /** Runs one MCP call; what it did to the list, and the verdict its audit row records (none when nothing was decided). */
  const call = async (tool: string, args: Record<string, unknown>) => {
    const before = tasks.tasks.map((task) => ({ ...task }));
    const result = await executor.execute({ tool, arguments: args, context: { userId: USER, source: 'mcp', mode: { kind: 'run' } } });
    const touched = touchedBetween(before, tasks.tasks);
    const verdict: PolicyVerdict | undefined = audit.rows.at(-1)?.entry.policy;
    return { result, touched, verdict };
  };
  return { call };
}

/** The numbers of the tasks a call deleted or changed in any way. */
function touchedBetween(before: readonly Task[], after: readonly Task[]): number[] {
  const now = new Map(after.map((task) => [task.number, task]));
  return before
    .filter((task) => {
      const later = now.get(task.number);
      return !later || JSON.stringify(later) !== JSON.stringify(task);
    })
    .map((task) => task.number);
}

const seeds = fc.array(
  fc.record({ title: fc.subarray(WORDS, { minLength: 1, maxLength: 2 }).map((words) => words.join(' ')), completed: fc.boolean() }),
  { maxLength: 10 },
);

/** A task's number as a caller may give it: mostly one there is, sometimes one there is not. */
const number = fc.integer({ min: 1, max: 12 });
const query = fc.oneof(
  fc.constantFrom(...WORDS),
  fc.subarray(WORDS, { minLength: 1, maxLength: 2 }).map((words) => words.join(' ')),
);

/** Every argument shape a caller can send each tool: by number, numbers, title words, scope (one the schema refuses too), mixed. */
const calls = fc.oneof(
  fc.record({ tool: fc.constant<Tool>('delete_task'), args: fc.record({ number }) }),
  fc.record({ tool: fc.constant<Tool>('delete_task'), args: fc.record({ numbers: fc.array(number, { minLength: 1, maxLength: 6 }) }) }),
  fc.record({ tool: fc.constant<Tool>('delete_task'), args: fc.record({ query }) }),
  fc.record({ tool: fc.constant<Tool>('delete_task'), args: fc.record({ scope: fc.constantFrom('all', 'completed', 'pending') }) }),
  fc.record({
    tool: fc.constant<Tool>('delete_task'),
    args: fc.record(
      { number, numbers: fc.array(number, { minLength: 1, maxLength: 4 }), query, scope: fc.constantFrom('all', 'completed') },
      { requiredKeys: [] },
    ),
  }),
  fc.record({ tool: fc.constant<Tool>('complete_task'), args: fc.oneof(fc.record({ number }), fc.record({ query })) }),
  fc.record({
    tool: fc.constant<Tool>('update_task'),
    args: fc.oneof(fc.record({ number, title: fc.constant('Renamed') }), fc.record({ query, priority: fc.constant('high') })),
  }),
);

/** The same call naming its tasks by number, as an explicit caller would. */
function explicit(tool: Tool, args: Record<string, unknown>, touched: readonly number[]): Record<string, unknown> {
  if (tool === 'delete_task') return { numbers: touched };
  const changes = Object.fromEntries(Object.entries(args).filter(([key]) => key !== 'query' && key !== 'number'));
  return { number: touched[0], ...changes };
}

describe('a policy fact equals what the call actually does', () => {
  it('counts as items the tasks a call touches, whatever words name them, and decides it as the same call by numbers', async () => {
    const tally = { decided: 0, scope: 0, many: 0, nothing: 0 };
    await fc.assert(
      fc.asyncProperty(seeds, calls, fc.integer({ min: 0, max: 5 }), async (list, { tool, args }, over) => {
        // What the call does with nothing in its way.
        const free = await (await world(list, [])).call(tool, args);
        const touched = free.touched;
        const rule: PolicyRule = {
          name: 'not-too-many',
          tools: [tool],
          when: { items: { over } },
          effect: 'deny',
          reason: `Never more than ${over} at once.`,
        };
        const capped = await (await world(list, [rule])).call(tool, args);
        if (!free.result.ok) {
          // A call that does nothing (invalid, no such task, more than one) is not decided, and changes nothing.
          tally.nothing += 1;
          expect(touched).toEqual([]);
          expect(capped.touched).toEqual([]);
          expect(free.verdict).toBeUndefined();
          return;
        }
        tally.decided += 1;
        if ('scope' in args) tally.scope += 1;
        if (touched.length > 1) tally.many += 1;
        // Completing a completed task changes nothing in it, but it is the one task the call is about.
        const items = tool === 'delete_task' ? touched.length : 1;
        expect(free.verdict?.items).toBe(items);
        if (tool === 'delete_task') expect(touched.length).toBe((free.result.data as { deleted: unknown[] }).deleted.length);
        expect(capped.verdict).toEqual({
          version: 1,
          ...(items > over ? { rule: 'not-too-many', effect: 'deny' } : { rule: null, effect: 'allow' }),
          items,
        });
        expect(capped.touched).toEqual(items > over ? [] : touched);

        const byNumbers = await (
          await world(list, [rule])
        ).call(tool, explicit(tool, args, tool === 'delete_task' ? touched : [numberOf(free.result.data)]));
        expect(byNumbers.verdict).toEqual(capped.verdict);
        expect(byNumbers.touched).toEqual(capped.touched);
      }),
      { numRuns: 300 },
    );
    // The generator reached what matters: scope calls decided, calls that touch several, and calls that do nothing.
    expect(tally.scope).toBeGreaterThan(10);
    expect(tally.many).toBeGreaterThan(10);
    expect(tally.nothing).toBeGreaterThan(10);
  });
});

function numberOf(data: unknown): number {
  return (data as { task: { number: number } }).task.number;
}
