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
import { NotifyingTaskRepository } from '../application/todo/notifying-task-repository';
import { TaskChanges } from '../application/todo/ports/task-changes.port';
import { UnitOfWork } from '../application/shared/ports/unit-of-work.port';
import { FleetTaskChanges } from '../infrastructure/events/fleet-task-changes';
import { FleetBus } from '../application/shared/ports/fleet-bus.port';
import { DataSource } from 'typeorm';
import { TasksController } from '../interfaces/http/todo/tasks.controller';
import { AdmitApiRequest } from '../application/policy/admit-api-request';
import { AuditLogModule } from './audit-log.module';
import { IdentityModule } from './identity.module';
import { PolicyModule } from './policy.module';
import { TodoToolsModule } from './todo-tools.module';

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
  // The REST routes that change tasks ask the policy in force first (docs/policies.md, source api); a refusal is audited.
  imports: [IdentityModule, PolicyModule, AuditLogModule, TodoToolsModule],
  controllers: [TasksController],
  providers: [
    { provide: TaskChanges, useFactory: (bus: FleetBus) => new FleetTaskChanges(bus), inject: [FleetBus] },
    {
      provide: TaskRepository,
      useFactory: (dataSource: DataSource, changes: TaskChanges, unitOfWork: UnitOfWork) =>
        new NotifyingTaskRepository(new PostgresTaskRepository(dataSource), changes, unitOfWork),
      inject: [DataSource, TaskChanges, UnitOfWork],
    },
    ...TASK_USE_CASES,
    AdmitApiRequest,
  ],
  exports: [...TASK_USE_CASES, TaskChanges],
})
export class TodoModule {}
