import { AddTaskUseCase } from '../../../src/application/todo/add-task.use-case';
import { CompleteTaskUseCase } from '../../../src/application/todo/complete-task.use-case';
import { DeleteTaskUseCase } from '../../../src/application/todo/delete-task.use-case';
import { GetTaskUseCase } from '../../../src/application/todo/get-task.use-case';
import { ListTasksUseCase } from '../../../src/application/todo/list-tasks.use-case';
import { LIST_TOOL_MAX, TodoToolbox } from '../../../src/application/todo/tools/todo-toolbox';
import { TASKS_PER_USER_MAX } from '../../../src/domain/todo/task';
import { UpdateTaskUseCase } from '../../../src/application/todo/update-task.use-case';
import { FixedClock } from '../../fakes/fixed-clock';
import { InMemoryTaskRepository } from '../../fakes/in-memory-task.repository';

function setup() {
  const tasks = new InMemoryTaskRepository();
  const clock = new FixedClock();
  const sut = new TodoToolbox(
    new AddTaskUseCase(tasks, clock),
    new ListTasksUseCase(tasks),
    new GetTaskUseCase(tasks),
    new CompleteTaskUseCase(tasks, clock),
    new UpdateTaskUseCase(tasks, clock),
    new DeleteTaskUseCase(tasks),
  );
  return { sut, tasks };
}

const run = (sut: TodoToolbox, tool: string, args: Record<string, unknown>) => sut.run(tool, args, 'u1', { dryRun: false });

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
