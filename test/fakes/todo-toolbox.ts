import type { Clock } from '../../src/application/shared/ports/clock.port';
import { AddTaskUseCase } from '../../src/application/todo/add-task.use-case';
import { CompleteTaskUseCase } from '../../src/application/todo/complete-task.use-case';
import { DeleteTasksAsShownUseCase } from '../../src/application/todo/delete-tasks-as-shown.use-case';
import { GetTaskUseCase } from '../../src/application/todo/get-task.use-case';
import { ListTasksUseCase } from '../../src/application/todo/list-tasks.use-case';
import type { TaskRepository } from '../../src/application/todo/ports/task-repository.port';
import { TodoToolbox } from '../../src/application/todo/tools/todo-toolbox';
import { TodoToolKit } from '../../src/application/todo/tools/todo-tool-kit';
import { TodoTools } from '../../src/application/todo/tools/todo-tools';
import { UpdateTaskUseCase } from '../../src/application/todo/update-task.use-case';

/** The real todo toolbox over `tasks` (in memory, in the unit suite), as TodoModule wires it. */
export function todoToolboxOn(tasks: TaskRepository, clock: Clock): TodoToolbox {
  return new TodoToolbox(
    TodoTools.builtIn,
    new TodoToolKit(
      new AddTaskUseCase(tasks, clock),
      new ListTasksUseCase(tasks),
      new GetTaskUseCase(tasks),
      new CompleteTaskUseCase(tasks, clock),
      new UpdateTaskUseCase(tasks, clock),
      new DeleteTasksAsShownUseCase(tasks),
    ),
  );
}
