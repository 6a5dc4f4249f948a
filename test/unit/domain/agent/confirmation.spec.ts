import {
  BULK_CHANGE,
  bulkChangeArguments,
  bulkChangeCalls,
  bulkChangePrompt,
  confirmationTargets,
  destructiveToolNotice,
  titlesInBrief,
} from '../../../../src/domain/agent/confirmation';
import { TODO_WORDS } from '../../../../src/application/todo/todo-words';
import { deletionPrompt } from '../../../../src/domain/todo/deletion';
import { clipped } from '../../../../src/domain/shared/words';

/** AGENT_MAX_REPLY_CHARS by default: a question is added to the reply whatever its bound, so it must fit on its own. */
const REPLY_BOUND = 500;

describe(deletionPrompt.name, () => {
  const titles = (count: number) => Array.from({ length: count }, (_, i) => `T${i + 1}`);

  it('names up to five tasks one by one, with or without a scope', () => {
    expect(deletionPrompt(['Dentist'], 'all')).toBe("Do you really want to delete 'Dentist'? Reply 'yes delete' to confirm.");
    expect(deletionPrompt(titles(5), 'all')).toBe(
      "Do you really want to delete 5 tasks: 'T1', 'T2', 'T3', 'T4' and 'T5'? Reply 'yes delete' to confirm.",
    );
  });

  it('counts a longer list asked for by scope, and names a few of a longer list asked for by number', () => {
    expect(deletionPrompt(titles(130), 'all')).toBe("Do you really want to delete all 130 tasks? Reply 'yes delete' to confirm.");
    expect(deletionPrompt(titles(7), 'all')).toBe("Do you really want to delete all 7 tasks? Reply 'yes delete' to confirm.");
    expect(deletionPrompt(titles(11), 'completed')).toBe(
      "Do you really want to delete all 11 completed tasks? Reply 'yes delete' to confirm.",
    );
    expect(deletionPrompt(titles(6))).toBe(
      "Do you really want to delete 6 tasks: 'T1', 'T2', 'T3' and 3 more? Reply 'yes delete' to confirm.",
    );
    expect(deletionPrompt(titles(130))).toBe(
      "Do you really want to delete 130 tasks: 'T1', 'T2', 'T3' and 127 more? Reply 'yes delete' to confirm.",
    );
  });

  it('asks about 3 tasks with 180-character titles within the reply bound, each title cut', () => {
    const long = ['a', 'b', 'c'].map((letter) => `${letter} ${'word '.repeat(40)}`.slice(0, 180));
    const prompt = deletionPrompt(long);
    expect(prompt.length).toBeLessThanOrEqual(REPLY_BOUND);
    expect(prompt).toBe(
      `Do you really want to delete 3 tasks: '${clipped(long[0], 60)}', '${clipped(long[1], 60)}' and '${clipped(long[2], 60)}'? ` +
        "Reply 'yes delete' to confirm.",
    );
    expect(clipped(long[0], 60)).toMatch(/^a word word .{40,}…$/);
    expect(clipped(long[0], 60)).toHaveLength(60);
  });

  it('fits the reply bound for any number of titles of the longest length', () => {
    const tooLong: { count: number; scope?: string; length: number }[] = [];
    for (const count of [1, 2, 5, 6, 10, 11, 200]) {
      const longest = Array.from({ length: count }, (_, i) => `${i} ${'x'.repeat(200)}`.slice(0, 200));
      for (const scope of [undefined, 'all', 'completed'] as const) {
        const { length } = deletionPrompt(longest, scope);
        if (length > REPLY_BOUND) tooLong.push({ count, scope, length });
      }
    }
    expect(tooLong).toEqual([]);
  });

  it('joins titles in brief', () => {
    expect(titlesInBrief(['A'])).toBe("'A'");
    expect(titlesInBrief(['A', 'B'])).toBe("'A' and 'B'");
    expect(titlesInBrief(titles(11))).toBe("'T1', 'T2', 'T3' and 8 more");
  });
});

describe(confirmationTargets.name, () => {
  const shown = (count: number, title = (i: number) => `Task ${i}`) =>
    Array.from({ length: count }, (_, i) => ({ number: i + 1, title: title(i + 1) }));

  it('reads a deletion from the stored call: every task counted, the first ten by title', () => {
    expect(confirmationTargets({ tool: 'delete_task', arguments: { tasks: shown(7) } }, TODO_WORDS)).toEqual({
      count: 7,
      items: ['Task 1', 'Task 2', 'Task 3', 'Task 4', 'Task 5', 'Task 6', 'Task 7'],
    });
    const many = confirmationTargets({ tool: 'delete_task', arguments: { tasks: shown(130) } }, TODO_WORDS);
    expect(many.count).toBe(130);
    expect(many.items).toEqual(shown(10).map((task) => task.title));
  });

  it('cuts each title to 100 characters', () => {
    const { items } = confirmationTargets(
      { tool: 'delete_task', arguments: { tasks: shown(2, (i) => `${i}${'y'.repeat(199)}`) } },
      TODO_WORDS,
    );
    expect(items.map((item) => item.length)).toEqual([100, 100]);
    expect(items[0]).toMatch(/^1y+…$/);
  });

  it('lists the calls of a bulk change, and a call stored without the tasks it names', () => {
    const calls = [
      { tool: 'complete_task', arguments: { number: 1 } },
      { tool: 'update_task', arguments: { query: 'rent', priority: 'high' } },
      { tool: 'complete_task', arguments: { number: 4 } },
      { tool: 'complete_task', arguments: { number: 5 } },
    ];
    expect(confirmationTargets({ tool: BULK_CHANGE, arguments: bulkChangeArguments(calls) }, TODO_WORDS)).toEqual({
      count: 4,
      items: ['complete task 1', "update 'rent'", 'complete task 4', 'complete task 5'],
    });
    expect(confirmationTargets({ tool: 'delete_task', arguments: { number: 3 } }, TODO_WORDS)).toEqual({
      count: 1,
      items: ['delete task 3'],
    });
  });
});

describe(destructiveToolNotice.name, () => {
  it('tells each channel what the server does', () => {
    expect(destructiveToolNotice('chat', 'allow')).toBe("Always needs the person's confirmation, which the server asks for.");
    expect(destructiveToolNotice('mcp', 'confirm-in-chat')).toMatch(
      /^Over this connection it deletes only after the person confirms in their MCP client/,
    );
    expect(destructiveToolNotice('mcp', 'allow')).toMatch(/^Over this connection it deletes at once/);
  });
});

describe(bulkChangePrompt.name, () => {
  it('names each change by its verb and target', () => {
    expect(
      bulkChangePrompt(
        [
          { tool: 'complete_task', arguments: { number: 1 } },
          { tool: 'update_task', arguments: { query: 'rent', priority: 'high' } },
          { tool: 'complete_task', arguments: {} },
          { tool: 'complete_task', arguments: { number: 4 } },
        ],
        TODO_WORDS,
      ),
    ).toBe("That's a big action: complete task 1, update 'rent', complete a task and complete task 4. Confirm with 'yes'.");
  });

  it('counts the rest of a long list', () => {
    const calls = Array.from({ length: 12 }, (_, i) => ({ tool: 'complete_task', arguments: { number: i + 1 } }));
    expect(bulkChangePrompt(calls, TODO_WORDS)).toBe(
      "That's a big action: complete task 1, complete task 2, complete task 3 and 9 more. Confirm with 'yes'.",
    );
  });

  it('fits the reply bound whatever the model searched for', () => {
    const calls = Array.from({ length: 5 }, (_, i) => ({ tool: 'update_task', arguments: { query: `${i}${'q'.repeat(300)}` } }));
    expect(bulkChangePrompt(calls, TODO_WORDS).length).toBeLessThanOrEqual(REPLY_BOUND);
    expect(bulkChangePrompt(calls, TODO_WORDS)).toContain(`update '0${'q'.repeat(58)}…'`);
  });
});

describe(bulkChangeCalls.name, () => {
  it('reads back what bulkChangeArguments stored', () => {
    const calls = [{ tool: 'complete_task', arguments: { number: 1 } }];
    expect(bulkChangeCalls(bulkChangeArguments(calls))).toEqual(calls);
  });

  it.each([
    [{}],
    [{ calls: [] }],
    [{ calls: [{ tool: 1, arguments: {} }] }],
    [{ calls: [{ tool: 'x', arguments: [] }] }],
    [{ calls: [null] }],
  ])('refuses %j', (args) => {
    expect(bulkChangeCalls(args)).toBeNull();
  });
});
