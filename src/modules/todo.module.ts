import { Module } from '@nestjs/common';
import { TaskRepository } from '../application/todo/ports/task-repository.port';
import {
  AddTaskUseCase,
  CompleteTaskUseCase,
  DeleteTaskUseCase,
  GetTaskUseCase,
  ListTasksUseCase,
  UpdateTaskUseCase,
} from '../application/todo/task-use-cases';
import { TypeOrmTaskRepository } from '../infrastructure/persistence/repositories/typeorm-task.repository';
import { TasksController } from '../interfaces/http/todo/tasks.controller';
import { IdentityModule } from './identity.module';

@Module({
  imports: [IdentityModule],
  controllers: [TasksController],
  providers: [
    { provide: TaskRepository, useClass: TypeOrmTaskRepository },
    AddTaskUseCase,
    ListTasksUseCase,
    GetTaskUseCase,
    UpdateTaskUseCase,
    CompleteTaskUseCase,
    DeleteTaskUseCase,
  ],
  exports: [AddTaskUseCase, ListTasksUseCase, GetTaskUseCase, UpdateTaskUseCase, CompleteTaskUseCase, DeleteTaskUseCase],
})
export class TodoModule {}
