import { AddTaskUseCase } from '../../../src/application/todo/add-task.use-case';
import { CompleteTaskUseCase } from '../../../src/application/todo/complete-task.use-case';
import { DeleteTaskUseCase } from '../../../src/application/todo/delete-task.use-case';
import { GetTaskUseCase } from '../../../src/application/todo/get-task.use-case';
import { ListTasksUseCase } from '../../../src/application/todo/list-tasks.use-case';
import { UpdateTaskUseCase } from '../../../src/application/todo/update-task.use-case';
import { InvalidTaskError, type Task, TaskBusyError, TaskNotFoundError } from '../../../src/domain/todo/task';
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
    update: new UpdateTaskUseCase(tasks, clock),
    complete: new CompleteTaskUseCase(tasks, clock),
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

  it('writes nothing for a task already completed', async () => {
    const { add, complete: sut, tasks } = setup();
    await add.execute({ userId: 'u1', title: 'Dentist' });
    await sut.execute({ userId: 'u1', number: 1 });
    const replace = jest.spyOn(tasks, 'replace');
    await sut.execute({ userId: 'u1', number: 1 });
    expect(replace).not.toHaveBeenCalled();
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
    const { task: updated } = await sut.execute({ userId: 'u1', number: 1, changes: { priority: 'high', description: 'at 3' } });
    expect(updated).toMatchObject({ priority: 'high', description: 'at 3', updatedAt: clock.now() });
    expect(await list.execute({ userId: 'u1', status: 'all' })).toEqual([updated]);
  });

  it('re-reads and re-applies its change when another writer got in between, keeping both changes', async () => {
    const { add, update: sut, tasks } = setup();
    await add.execute({ userId: 'u1', title: 'Dentist' });
    // Another request renames the task between this update's read and its write.
    const replace = tasks.replace.bind(tasks);
    let interfered = false;
    const writes = jest.spyOn(tasks, 'replace').mockImplementation(async (read: Task, updated: Task) => {
      if (!interfered) {
        interfered = true;
        await replace(read, { ...read, title: 'Dentist at 3' });
      }
      return replace(read, updated);
    });
    const { task: updated, previous } = await sut.execute({ userId: 'u1', number: 1, changes: { priority: 'high' } });
    expect(updated).toMatchObject({ title: 'Dentist at 3', priority: 'high' });
    expect(previous).toMatchObject({ title: 'Dentist at 3', priority: 'medium' });
    expect(tasks.tasks).toEqual([updated]);
    expect(writes).toHaveBeenCalledTimes(2); // the first write met the renamed row; the second landed
  });

  it('gives up with TaskBusyError, writing nothing, when the task changes under every attempt', async () => {
    const { add, update: sut, tasks } = setup();
    const stored = await add.execute({ userId: 'u1', title: 'Dentist' });
    const writes = jest.spyOn(tasks, 'replace').mockResolvedValue(false);
    await expect(sut.execute({ userId: 'u1', number: 1, changes: { priority: 'high' } })).rejects.toThrow(TaskBusyError);
    expect(writes).toHaveBeenCalledTimes(10);
    expect(tasks.tasks).toEqual([stored]);
  });

  it('reports a task deleted between its read and its write as missing', async () => {
    const { add, update: sut, tasks, remove } = setup();
    await add.execute({ userId: 'u1', title: 'Dentist' });
    const replace = tasks.replace.bind(tasks);
    jest.spyOn(tasks, 'replace').mockImplementationOnce(async (read: Task, updated: Task) => {
      await remove.execute({ userId: 'u1', number: 1 });
      return replace(read, updated);
    });
    await expect(sut.execute({ userId: 'u1', number: 1, changes: { priority: 'high' } })).rejects.toThrow(new TaskNotFoundError(1));
    expect(tasks.tasks).toEqual([]);
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
