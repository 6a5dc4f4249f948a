import { LIST_TOOL_MAX, TodoToolbox } from '../../../src/application/todo/tools/todo-toolbox';
import { TASKS_PER_USER_MAX } from '../../../src/domain/todo/task';
import { AjvSchemaValidator } from '../../../src/infrastructure/validation/ajv-schema-validator';
import { FixedClock } from '../../fakes/fixed-clock';
import { InMemoryTaskRepository } from '../../fakes/in-memory-task.repository';
import { todoToolboxOn } from '../../fakes/todo-toolbox';

function setup() {
  const tasks = new InMemoryTaskRepository();
  const clock = new FixedClock();
  const sut = todoToolboxOn(tasks, clock);
  return { sut, tasks };
}

/** A call as the executor makes it: resolved, then run as resolved. */
async function call(sut: TodoToolbox, tool: string, args: Record<string, unknown>, dryRun: boolean) {
  const resolution = await sut.resolve(tool, args, 'u1');
  return resolution.ok ? sut.run(resolution.call, 'u1', { dryRun }) : resolution;
}

const run = (sut: TodoToolbox, tool: string, args: Record<string, unknown>) => call(sut, tool, args, false);

describe(`${TodoToolbox.name} update_task`, () => {
  it('reports the title before the change and the fields that changed', async () => {
    const { sut } = setup();
    await run(sut, 'add_task', { title: 'Dentist' });
    await expect(run(sut, 'update_task', { number: 1, title: 'Dentist at 3', priority: 'medium' })).resolves.toEqual({
      ok: true,
      data: {
        task: { number: 1, title: 'Dentist at 3', description: null, priority: 'medium', completed: false },
        previousTitle: 'Dentist',
        changed: ['title'],
      },
    });
  });

  it('answers TASK_BUSY, changing nothing, when the task kept changing under the write', async () => {
    const { sut, tasks } = setup();
    await run(sut, 'add_task', { title: 'Dentist' });
    const before = [...tasks.tasks];
    jest.spyOn(tasks, 'replace').mockResolvedValue(false);
    await expect(run(sut, 'update_task', { number: 1, priority: 'high' })).resolves.toEqual({
      ok: false,
      code: 'TASK_BUSY',
      message: 'Task 1 is being changed by another request right now; try again',
      details: { number: 1 },
    });
    expect(tasks.tasks).toEqual(before);
  });
});

describe(`${TodoToolbox.name} limits`, () => {
  it(`lists at most ${LIST_TOOL_MAX} tasks to the model, saying how many more there are`, async () => {
    const { sut } = setup();
    for (let i = 1; i <= LIST_TOOL_MAX + 7; i++) await run(sut, 'add_task', { title: `Task ${i}` });
    const listed = await run(sut, 'list_tasks', {});
    expect(listed).toMatchObject({ ok: true, data: { status: 'all', count: LIST_TOOL_MAX + 7, more: 7 } });
    const data = (listed as { data: { tasks: { number: number }[] } }).data;
    expect(data.tasks.map((task) => task.number)).toEqual(Array.from({ length: LIST_TOOL_MAX }, (_, i) => i + 1));
    // The long list is what list_tasks' outputSchema says, `more` and all: an MCP client checks it.
    const outputSchema = sut.definitions.find((tool) => tool.name === 'list_tasks')?.outputSchema;
    expect(new AjvSchemaValidator().violations(outputSchema!, data, 'result')).toEqual([]);
    await expect(run(sut, 'list_tasks', { status: 'completed' })).resolves.toEqual({
      ok: true,
      data: { status: 'completed', count: 0, tasks: [] },
    });
  });

  it(`answers TASK_LIMIT_REACHED once the person has ${TASKS_PER_USER_MAX} tasks, and adds again after a delete`, async () => {
    const { sut, tasks } = setup();
    for (let i = 1; i <= TASKS_PER_USER_MAX; i++) await run(sut, 'add_task', { title: `Task ${i}` });
    await expect(run(sut, 'add_task', { title: 'One too many' })).resolves.toEqual({
      ok: false,
      code: 'TASK_LIMIT_REACHED',
      message: `You already have ${TASKS_PER_USER_MAX} tasks, the most one list can hold; delete some to make room`,
      details: { limit: TASKS_PER_USER_MAX },
    });
    expect(tasks.tasks).toHaveLength(TASKS_PER_USER_MAX);
    await run(sut, 'delete_task', { numbers: [1] });
    await expect(run(sut, 'add_task', { title: 'Room again' })).resolves.toMatchObject({ ok: true });
  });
});

describe(`${TodoToolbox.name} delete_task`, () => {
  const dryRun = (sut: TodoToolbox, args: Record<string, unknown>) => call(sut, 'delete_task', args, true);
  const titles = (tasks: InMemoryTaskRepository) => tasks.tasks.map((task) => task.title);

  async function withTasks(count: number) {
    const built = setup();
    for (let i = 1; i <= count; i++) await run(built.sut, 'add_task', { title: `Task ${i}` });
    return built;
  }

  it('asks about the tasks it resolved and stores them with the titles shown, changing nothing', async () => {
    const { sut, tasks } = await withTasks(3);
    await expect(dryRun(sut, { numbers: [3, 1, 3] })).resolves.toEqual({
      ok: true,
      data: {
        prompt: "Do you really want to delete 2 tasks: 'Task 3' and 'Task 1'? Reply 'yes delete' to confirm.",
        arguments: {
          tasks: [
            { number: 3, title: 'Task 3' },
            { number: 1, title: 'Task 1' },
          ],
        },
        preview: { wouldDelete: [expect.objectContaining({ number: 3 }), expect.objectContaining({ number: 1 })] },
      },
    });
    expect(titles(tasks)).toEqual(['Task 1', 'Task 2', 'Task 3']);
  });

  it(`counts a long list asked for by scope, and deletes all ${TASKS_PER_USER_MAX} on the confirmed call`, async () => {
    const { sut, tasks } = await withTasks(TASKS_PER_USER_MAX);
    const asked = await dryRun(sut, { scope: 'all' });
    expect(asked).toMatchObject({
      ok: true,
      data: { prompt: `Do you really want to delete all ${TASKS_PER_USER_MAX} tasks? Reply 'yes delete' to confirm.` },
    });
    const { arguments: confirmed } = (asked as { data: { arguments: Record<string, unknown> } }).data;
    const done = await run(sut, 'delete_task', confirmed);
    expect(done).toMatchObject({ ok: true });
    expect((done as { data: { deleted: unknown[] } }).data.deleted).toHaveLength(TASKS_PER_USER_MAX);
    expect(tasks.tasks).toEqual([]);
  });

  it('deletes nothing when a shown task is gone or renamed, and asks again about what is there now', async () => {
    const { sut, tasks } = await withTasks(3);
    const shown = [
      { number: 1, title: 'Task 1' },
      { number: 2, title: 'Task 2' },
      { number: 3, title: 'Task 3' },
    ];
    await tasks.remove('u1', 2);
    await run(sut, 'update_task', { number: 3, title: 'Pay rent' });

    const message =
      "Since I asked, task 2 'Task 2' is gone and task 3 'Task 3' was renamed 'Pay rent', so I deleted nothing. " +
      "Do you really want to delete 2 tasks: 'Task 1' and 'Pay rent'? Reply 'yes delete' to confirm.";
    await expect(run(sut, 'delete_task', { tasks: shown })).resolves.toEqual({
      ok: false,
      code: 'CONFIRMATION_STALE',
      message,
      details: {
        gone: [{ number: 2, title: 'Task 2' }],
        renamed: [{ number: 3, was: 'Task 3', now: 'Pay rent' }],
        askAgain: {
          prompt: message,
          arguments: {
            tasks: [
              { number: 1, title: 'Task 1' },
              { number: 3, title: 'Pay rent' },
            ],
          },
          preview: { wouldDelete: [expect.objectContaining({ number: 1 }), expect.objectContaining({ number: 3, title: 'Pay rent' })] },
        },
      },
    });
    expect(titles(tasks)).toEqual(['Task 1', 'Pay rent']);
  });

  it('asks nothing again when every shown task is gone', async () => {
    const { sut, tasks } = await withTasks(1);
    await tasks.remove('u1', 1);
    await expect(run(sut, 'delete_task', { tasks: [{ number: 1, title: 'Task 1' }] })).resolves.toEqual({
      ok: false,
      code: 'CONFIRMATION_STALE',
      message: "Since I asked, task 1 'Task 1' is gone, so I deleted nothing.",
      details: { gone: [{ number: 1, title: 'Task 1' }], renamed: [], askAgain: null },
    });
  });

  it('deletes what a call names at once all or nothing: one missing number deletes none', async () => {
    const { sut, tasks } = await withTasks(3);
    await expect(run(sut, 'delete_task', { numbers: [1, 9] })).resolves.toMatchObject({
      ok: false,
      code: 'TASK_NOT_FOUND',
      details: { number: 9 },
    });
    await expect(run(sut, 'delete_task', { scope: 'all' })).resolves.toMatchObject({
      ok: true,
      data: { deleted: [{ number: 1 }, { number: 2 }, { number: 3 }] },
    });
    expect(tasks.tasks).toEqual([]);
  });

  it('answers TASKS_CHANGED, deleting nothing, when a named task changes between the look-up and the delete', async () => {
    const { sut, tasks } = await withTasks(2);
    jest.spyOn(tasks, 'removeAsShown').mockResolvedValueOnce({ removed: false, current: [] });
    await expect(run(sut, 'delete_task', { number: 2 })).resolves.toEqual({
      ok: false,
      code: 'TASKS_CHANGED',
      message: 'The tasks changed while they were being deleted, so nothing was deleted; look at the list again.',
      details: { gone: [{ number: 2, title: 'Task 2' }], renamed: [] },
    });
    expect(titles(tasks)).toEqual(['Task 1', 'Task 2']);
  });

  it.each([
    [{ number: 3 }, 'delete task 3'],
    [{ numbers: [4, 5, 4, 6] }, 'delete tasks 4, 5 and 6'],
    [{ numbers: [7] }, 'delete task 7'],
    [{ scope: 'all' }, 'delete everything'],
    [{ scope: 'completed' }, 'delete all completed tasks'],
    [{ query: 'dentist' }, 'delete dentist'],
    [{}, null],
  ])('tells a caller that cannot ask the person what to say in the chat for %j', (args, sentence) => {
    const { sut } = setup();
    expect(sut.chatRequestFor('delete_task', args)).toBe(sentence);
    expect(sut.chatRequestFor('add_task', { title: 'x' })).toBeNull();
  });
});
