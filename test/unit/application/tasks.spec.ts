import { AddTaskUseCase } from '../../../src/application/todo/add-task.use-case';
import { CompleteTaskUseCase } from '../../../src/application/todo/complete-task.use-case';
import { DeleteTaskUseCase } from '../../../src/application/todo/delete-task.use-case';
import { GetTaskUseCase } from '../../../src/application/todo/get-task.use-case';
import { ListTasksUseCase } from '../../../src/application/todo/list-tasks.use-case';
import { UpdateTaskUseCase } from '../../../src/application/todo/update-task.use-case';
import { InvalidTaskError, TaskNotFoundError } from '../../../src/domain/todo/task';
import { FixedClock } from '../../fakes/fixed-clock';
import { InMemoryTaskRepository } from '../../fakes/in-memory-task.repository';

function setup() {
  const tasks = new InMemoryTaskRepository();
  const clock = new FixedClock();
  const getTask = new GetTaskUseCase(tasks);
  return {
    tasks,
    clock,
    add: new AddTaskUseCase(tasks, clock),
    list: new ListTasksUseCase(tasks),
    getTask,
    update: new UpdateTaskUseCase(getTask, tasks, clock),
    complete: new CompleteTaskUseCase(getTask, tasks, clock),
    remove: new DeleteTaskUseCase(tasks),
  };
}

describe(AddTaskUseCase.name, () => {
  it('validates before storing anything', async () => {
    const { add: sut, tasks } = setup();
    await expect(sut.execute({ userId: 'u1', title: '   ' })).rejects.toThrow(InvalidTaskError);
    expect(tasks.tasks).toHaveLength(0);
  });
});

describe(CompleteTaskUseCase.name, () => {
  it('completes once and keeps the first completion time when repeated', async () => {
    const { add, complete: sut, clock } = setup();
    await add.execute({ userId: 'u1', title: 'Dentist' });
    const first = await sut.execute({ userId: 'u1', number: 1 });
    clock.advance(60_000);
    const again = await sut.execute({ userId: 'u1', number: 1 });
    expect(first).toMatchObject({ alreadyCompleted: false, task: { completedAt: new Date('2026-11-22T09:00:00.000Z') } });
    expect(again).toEqual({ task: first.task, alreadyCompleted: true });
  });

  it("treats another user's task as missing", async () => {
    const { add, complete: sut } = setup();
    await add.execute({ userId: 'u1', title: 'Dentist' });
    await expect(sut.execute({ userId: 'u2', number: 1 })).rejects.toThrow(TaskNotFoundError);
  });
});

describe(UpdateTaskUseCase.name, () => {
  it('applies changes and stamps updatedAt', async () => {
    const { add, update: sut, clock, list } = setup();
    await add.execute({ userId: 'u1', title: 'Dentist' });
    clock.advance(1000);
    const updated = await sut.execute({ userId: 'u1', number: 1, changes: { priority: 'high', description: 'at 3' } });
    expect(updated).toMatchObject({ priority: 'high', description: 'at 3', updatedAt: clock.now() });
    expect(await list.execute({ userId: 'u1', status: 'all' })).toEqual([updated]);
  });
});

describe(DeleteTaskUseCase.name, () => {
  it('returns the removed task, then reports it missing', async () => {
    const { add, remove: sut } = setup();
    await add.execute({ userId: 'u1', title: 'Dentist' });
    await expect(sut.execute({ userId: 'u1', number: 1 })).resolves.toMatchObject({ title: 'Dentist' });
    await expect(sut.execute({ userId: 'u1', number: 1 })).rejects.toThrow(new TaskNotFoundError(1));
  });
});
