import { settleFromEvidence, type TaskEvidence } from '../../../src/application/todo/tools/tool-call-evidence';
import type { Task } from '../../../src/domain/todo/task';
import { aTask } from '../../factories/tasks';

const STARTED = new Date('2026-11-22T09:00:00.000Z');
const WINDOW = 10_000;
const at = (ms: number) => new Date(STARTED.getTime() + ms);

/** A task of the day before the call, unless `changes` says otherwise. */
const task = (number: number, title: string, changes: Partial<Task> = {}): Task =>
  aTask({ number, title, createdAt: at(-86_400_000), updatedAt: at(-86_400_000), ...changes });

function evidence(tasks: Task[], changes: Partial<TaskEvidence> = {}): TaskEvidence {
  return { tasks, lastTaskNumber: Math.max(0, ...tasks.map((t) => t.number)), claimedTaskNumbers: new Set(), ...changes };
}

const sut = (tool: string, args: Record<string, unknown> | string, shown: TaskEvidence) =>
  settleFromEvidence({ tool, arguments: args, startedAt: STARTED }, shown, WINDOW);

describe(settleFromEvidence.name, () => {
  describe('add_task', () => {
    const milk = task(4, 'Buy milk', { createdAt: at(3) });

    it('succeeds on a task with its title, created while the call could run and claimed by no other call', () => {
      expect(sut('add_task', { title: '  Buy milk ' }, evidence([milk]))).toEqual({
        status: 'succeeded',
        result: { task: expect.objectContaining({ number: 4, title: 'Buy milk' }), evidence: expect.any(String), settledAfterCrash: true },
      });
    });

    it.each([
      ['created before the call began', [task(4, 'Buy milk', { createdAt: at(-1) })], {}],
      ['created after the call could still run', [task(4, 'Buy milk', { createdAt: at(WINDOW + 1) })], {}],
      ['another call recorded it as the one it added', [milk], { claimedTaskNumbers: new Set([4]) }],
      ['its priority is not the one asked for', [task(4, 'Buy milk', { createdAt: at(3), priority: 'high' })], {}],
      ['no task has that title', [task(4, 'Buy bread', { createdAt: at(3) })], {}],
    ])('is unknown when the only candidate was %s', (_why, tasks, changes) => {
      expect(sut('add_task', { title: 'Buy milk' }, evidence(tasks, changes))).toMatchObject({
        status: 'unknown',
        errorCode: 'UNKNOWN_OUTCOME',
      });
    });

    it('is unknown when the recorded arguments do not describe a task', () => {
      expect(sut('add_task', { title: '   ' }, evidence([milk]))).toMatchObject({ status: 'unknown' });
      expect(sut('add_task', '{"title": "Buy milk"', evidence([milk]))).toMatchObject({ status: 'unknown' });
    });
  });

  describe('complete_task', () => {
    it('succeeds when the task is completed, saying whether it already was', () => {
      const done = task(2, 'Dentist', { completed: true, completedAt: at(5) });
      expect(sut('complete_task', { number: 2 }, evidence([done]))).toMatchObject({
        status: 'succeeded',
        result: { alreadyCompleted: false },
      });
      const before = task(2, 'Dentist', { completed: true, completedAt: at(-5) });
      expect(sut('complete_task', { number: 2 }, evidence([before]))).toMatchObject({
        status: 'succeeded',
        result: { alreadyCompleted: true },
      });
    });

    it('is unknown when the task is open or gone, or was named by words', () => {
      expect(sut('complete_task', { number: 2 }, evidence([task(2, 'Dentist')]))).toMatchObject({ status: 'unknown' });
      expect(sut('complete_task', { number: 2 }, evidence([], { lastTaskNumber: 2 }))).toMatchObject({ status: 'unknown' });
      const done = task(2, 'Dentist', { completed: true, completedAt: at(5) });
      expect(sut('complete_task', { query: 'dentist' }, evidence([done]))).toMatchObject({ status: 'unknown' });
    });
  });

  describe('update_task', () => {
    it('succeeds when the task holds every field asked for, and is unknown otherwise', () => {
      const renamed = task(1, 'Buy oat milk', { priority: 'high' });
      expect(sut('update_task', { number: 1, title: 'Buy oat milk', priority: 'high' }, evidence([renamed]))).toMatchObject({
        status: 'succeeded',
      });
      expect(sut('update_task', { number: 1, title: 'Buy oat milk', priority: 'low' }, evidence([renamed]))).toMatchObject({
        status: 'unknown',
      });
      expect(sut('update_task', { query: 'milk', title: 'Buy oat milk' }, evidence([renamed]))).toMatchObject({ status: 'unknown' });
    });
  });

  describe('delete_task', () => {
    it('succeeds when every task it named by number is gone', () => {
      expect(sut('delete_task', { numbers: [2, 3] }, evidence([task(1, 'Keep')], { lastTaskNumber: 3 }))).toMatchObject({
        status: 'succeeded',
        result: { deletedNumbers: [2, 3] },
      });
    });

    it('reads a confirmed deletion, which names the tasks as the question showed them', () => {
      const confirmed = {
        tasks: [
          { number: 2, title: 'Old' },
          { number: 3, title: 'Older' },
        ],
      };
      expect(sut('delete_task', confirmed, evidence([task(1, 'Keep')], { lastTaskNumber: 3 }))).toMatchObject({
        status: 'succeeded',
        result: { deletedNumbers: [2, 3] },
      });
      expect(sut('delete_task', confirmed, evidence([task(3, 'Older')], { lastTaskNumber: 3 }))).toMatchObject({
        status: 'unknown',
        result: { detail: 'task 3 is still there' },
      });
      expect(sut('delete_task', { tasks: [{ number: '[redacted]' }] }, evidence([]))).toMatchObject({ status: 'unknown' });
    });

    it('is unknown when one is still there, never existed, or the call named them by scope', () => {
      expect(sut('delete_task', { numbers: [1, 2] }, evidence([task(1, 'Keep')], { lastTaskNumber: 2 }))).toMatchObject({
        status: 'unknown',
        result: { detail: 'task 1 is still there' },
      });
      expect(sut('delete_task', { number: 9 }, evidence([], { lastTaskNumber: 3 }))).toMatchObject({
        status: 'unknown',
        result: { detail: 'task 9 never existed' },
      });
      expect(sut('delete_task', { scope: 'all' }, evidence([]))).toMatchObject({ status: 'unknown' });
    });
  });

  it('is unknown for a tool whose effect it cannot check', () => {
    expect(sut('launch_rocket', {}, evidence([]))).toMatchObject({ status: 'unknown', result: { review: true } });
  });
});
