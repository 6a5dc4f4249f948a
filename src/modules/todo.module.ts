import { Module } from '@nestjs/common';
import { TaskRepository } from '../application/todo/ports/task-repository.port';
import { AddTaskUseCase } from '../application/todo/add-task.use-case';
import { CompleteTaskUseCase } from '../application/todo/complete-task.use-case';
import { DeleteTaskUseCase } from '../application/todo/delete-task.use-case';
import { DeleteTasksAsShownUseCase } from '../application/todo/delete-tasks-as-shown.use-case';
import { GetTaskUseCase } from '../application/todo/get-task.use-case';
import { ListTasksUseCase } from '../application/todo/list-tasks.use-case';
import { UpdateTaskUseCase } from '../application/todo/update-task.use-case';
import { PostgresTaskRepository } from '../infrastructure/persistence/repositories/postgres-task.repository';
import { TasksController } from '../interfaces/http/todo/tasks.controller';
import { IdentityModule } from './identity.module';

/** The task use cases: the HTTP API and the chat's tools run the same ones. */
const TASK_USE_CASES = [
  AddTaskUseCase,
  ListTasksUseCase,
  GetTaskUseCase,
  UpdateTaskUseCase,
  CompleteTaskUseCase,
  DeleteTaskUseCase,
  DeleteTasksAsShownUseCase,
];

@Module({
  imports: [IdentityModule],
  controllers: [TasksController],
  providers: [{ provide: TaskRepository, useClass: PostgresTaskRepository }, ...TASK_USE_CASES],
  exports: TASK_USE_CASES,
})
export class TodoModule {}
