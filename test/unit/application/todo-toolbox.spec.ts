import { AddTaskUseCase } from '../../../src/application/todo/add-task.use-case';
import { CompleteTaskUseCase } from '../../../src/application/todo/complete-task.use-case';
import { DeleteTaskUseCase } from '../../../src/application/todo/delete-task.use-case';
import { GetTaskUseCase } from '../../../src/application/todo/get-task.use-case';
import { ListTasksUseCase } from '../../../src/application/todo/list-tasks.use-case';
import { TodoToolbox } from '../../../src/application/todo/tools/todo-toolbox';
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
