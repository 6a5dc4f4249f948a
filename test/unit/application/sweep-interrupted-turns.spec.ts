import type { UnsettledToolCall } from '../../../src/application/chat/ports/interrupted-turn-store.port';
import { SweepInterruptedTurnsUseCase } from '../../../src/application/chat/sweep-interrupted-turns.use-case';
import { DEFAULT_AGENT_LIMITS, DEFAULT_SAMPLING } from '../../../src/domain/agent/limits';
import { INTERRUPTED_ANSWER } from '../../../src/domain/chat/conversation';
import type { Task } from '../../../src/domain/todo/task';
import { RecordingLogger } from '../../fakes/recording-logger';
import { FixedClock } from '../../fakes/fixed-clock';
import { InMemoryInterruptedTurnStore, type OpenTurn } from '../../fakes/in-memory-interrupted-turn-store';
import { aTask } from '../../factories/tasks';

const NOW = new Date('2026-11-22T09:00:00.000Z');
const TURN_MS = 30_000;
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const settings = {
  limits: { ...DEFAULT_AGENT_LIMITS, turnTimeoutMs: TURN_MS, toolTimeoutMs: 10_000 },
  sampling: DEFAULT_SAMPLING,
  prices: null,
  turnsPerMinute: 60,
};

function call(pendingSeq: number, tool: string, args: Record<string, unknown>, startedAt = ago(2 * TURN_MS + 1)): UnsettledToolCall {
  return {
    pendingSeq,
    startedAt,
    entry: { source: 'chat', actorId: 'user-1', conversationId: 'c-1', decisionId: 'd-1', tool, arguments: args, securityEvents: [] },
  };
}

const task = (number: number, title: string, createdAt: Date, changes: Partial<Task> = {}): Task =>
  aTask({ number, title, createdAt, ...changes });

describe(SweepInterruptedTurnsUseCase.name, () => {
  let logger: RecordingLogger;
  const logged = () => logger.lines.map(({ level, context, line }) => ({ level, context, ...line }));

  beforeEach(() => {
    logger = new RecordingLogger();
  });

  it('leaves everything younger than twice the turn budget, which a live turn may still own', async () => {
    const store = new InMemoryInterruptedTurnStore(
      [call(1, 'add_task', { title: 'Milk' }, ago(2 * TURN_MS - 1))],
      [{ decisionId: 'd-1', startedAt: ago(2 * TURN_MS - 1) }],
    );
    const sut = new SweepInterruptedTurnsUseCase(store, settings, new FixedClock(NOW), logger);

    await expect(sut.run()).resolves.toEqual({ succeeded: 0, unknown: 0, answered: 0 });
    expect(store.queries[0].startedBefore).toEqual(ago(2 * TURN_MS));
    expect(store.outcomes.size).toBe(0);
    expect(store.turns[0].answer).toBeUndefined();
    expect(logged()).toEqual([]);
  });

  it('settles each call from the evidence, answers the cut-off turns and logs the counts once, never the words', async () => {
    const startedAt = ago(5 * 60_000);
    const tasks = [
      task(1, 'Buy milk', new Date(startedAt.getTime() + 5)),
      task(2, 'Dentist', ago(86_400_000), { completed: true, completedAt: new Date(startedAt.getTime() + 9) }),
    ];
    const store = new InMemoryInterruptedTurnStore(
      [
        call(1, 'add_task', { title: 'Buy milk' }, startedAt),
        call(2, 'complete_task', { number: 2 }, startedAt),
        call(3, 'add_task', { title: 'Secret plan' }, startedAt),
      ],
      [
        { decisionId: 'd-1', startedAt },
        { decisionId: 'd-2', startedAt: ago(10) },
      ],
      { tasks, lastTaskNumber: 2, claimedTaskNumbers: new Set() },
    );
    const sut = new SweepInterruptedTurnsUseCase(store, settings, new FixedClock(NOW), logger);

    await expect(sut.run()).resolves.toEqual({ succeeded: 2, unknown: 1, answered: 1 });
    expect(store.outcomes.get(1)).toMatchObject({ status: 'succeeded', result: { task: { number: 1, title: 'Buy milk' } } });
    expect(store.outcomes.get(2)).toMatchObject({ status: 'succeeded', result: { task: { number: 2 }, alreadyCompleted: false } });
    expect(store.outcomes.get(3)).toMatchObject({ status: 'unknown', errorCode: 'UNKNOWN_OUTCOME' });
    expect(store.turns.map((turn: OpenTurn) => turn.answer)).toEqual([INTERRUPTED_ANSWER, undefined]);
    expect(logged()).toEqual([
      {
        level: 'info',
        context: SweepInterruptedTurnsUseCase.name,
        msg: 'settled chat turns cut off before they finished',
        toolCalls: { succeeded: 2, unknown: 1 },
        answered: 1,
      },
    ]);
    expect(JSON.stringify(logged())).not.toMatch(/milk|Secret|Dentist/i);
  });

  it('goes through more calls than one batch, and does not count a call another sweeper settled first', async () => {
    const calls = Array.from({ length: 120 }, (_, i) => call(i + 1, 'delete_task', { scope: 'all' }));
    const store = new InMemoryInterruptedTurnStore(calls);
    for (const seq of [7, 77]) store.settledElsewhere.add(seq);
    const sut = new SweepInterruptedTurnsUseCase(store, settings, new FixedClock(NOW), logger);

    await expect(sut.run()).resolves.toEqual({ succeeded: 0, unknown: 118, answered: 0 });
    expect(store.queries.map((query) => query.afterSeq)).toEqual([0, 50, 100]);
  });
});
