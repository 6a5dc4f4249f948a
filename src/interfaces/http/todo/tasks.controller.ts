import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AddTaskUseCase } from '../../../application/todo/add-task.use-case';
import { CompleteTaskUseCase } from '../../../application/todo/complete-task.use-case';
import { DeleteTaskUseCase } from '../../../application/todo/delete-task.use-case';
import { GetTaskUseCase } from '../../../application/todo/get-task.use-case';
import { ListTasksUseCase } from '../../../application/todo/list-tasks.use-case';
import { UpdateTaskUseCase } from '../../../application/todo/update-task.use-case';
import { TASKS_PER_USER_MAX } from '../../../domain/todo/task';
import { BearerAuthGuard, OwnUserGuard } from '../guards/bearer-auth.guard';
import { ApiErrors } from '../shared/api-errors.decorator';
import { ApiError } from '../shared/api-error';
import { CreateTaskRequestDto, ListTasksQueryDto, TaskPathDto, TaskResponseDto, UpdateTaskRequestDto, UserPathDto } from './task.dto';
import { RequiredScope } from '../guards/required-scope';

const TASK_BUSY = {
  status: 409,
  description: 'TODO.TASK_BUSY: the task kept changing under this request; nothing was changed, try again',
} as const;

@ApiTags('tasks')
@ApiBearerAuth()
@ApiErrors(400, 401, 403)
@RequiredScope('tasks:read', 'tasks:write')
@UseGuards(BearerAuthGuard, OwnUserGuard)
@Controller('api/:userId/tasks')
export class TasksController {
  constructor(
    private readonly addTask: AddTaskUseCase,
    private readonly listTasks: ListTasksUseCase,
    private readonly getTask: GetTaskUseCase,
    private readonly updateTask: UpdateTaskUseCase,
    private readonly completeTask: CompleteTaskUseCase,
    private readonly deleteTask: DeleteTaskUseCase,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'listTasks',
    summary: "List the user's tasks in number order",
    description: `All of them (a list holds at most ${TASKS_PER_USER_MAX}), or only the pending or only the completed ones.`,
  })
  @ApiOkResponse({ type: [TaskResponseDto] })
  async list(@Param() path: UserPathDto, @Query() query: ListTasksQueryDto): Promise<TaskResponseDto[]> {
    const tasks = await this.listTasks.execute({ userId: path.userId, status: query.status ?? 'all' });
    return tasks.map((task) => TaskResponseDto.of(task));
  }

  @Post()
  @ApiOperation({
    operationId: 'createTask',
    summary: 'Add a task; it gets the next per-user number',
    description: 'The title is trimmed; priority defaults to medium. Numbers are never reused, even after a delete.',
  })
  @ApiCreatedResponse({ type: TaskResponseDto })
  @ApiErrors({ status: 409, description: 'TODO.TASK_LIMIT_REACHED: the list holds the most tasks it may; delete some' }, 413)
  async create(@Param() path: UserPathDto, @Body() body: CreateTaskRequestDto): Promise<TaskResponseDto> {
    return TaskResponseDto.of(await this.addTask.execute({ userId: path.userId, ...body }));
  }

  @Get(':number')
  @ApiOperation({ operationId: 'getTask', summary: 'One task by its number', description: 'The task with this per-user number.' })
  @ApiOkResponse({ type: TaskResponseDto })
  @ApiErrors(404)
  async get(@Param() path: TaskPathDto): Promise<TaskResponseDto> {
    return TaskResponseDto.of(await this.getTask.execute(path));
  }

  @Patch(':number')
  @ApiOperation({
    operationId: 'updateTask',
    summary: 'Change title, description, priority or completion',
    description: 'Only the fields sent change (at least one); description null clears it, completed false reopens the task.',
  })
  @ApiOkResponse({ type: TaskResponseDto })
  @ApiErrors(404, TASK_BUSY, 413)
  async update(@Param() path: TaskPathDto, @Body() body: UpdateTaskRequestDto): Promise<TaskResponseDto> {
    if (Object.values(body).every((value) => value === undefined)) {
      throw new ApiError(400, 'VALIDATION.FAILED', 'Send at least one of title, description, priority, completed');
    }
    return TaskResponseDto.of((await this.updateTask.execute({ ...path, changes: body })).task);
  }

  @Post(':number/complete')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'completeTask',
    summary: 'Mark a task completed (idempotent)',
    description: 'Completing a completed task changes nothing and keeps its completion time.',
  })
  @ApiOkResponse({ type: TaskResponseDto })
  @ApiErrors(404, TASK_BUSY)
  async complete(@Param() path: TaskPathDto): Promise<TaskResponseDto> {
    return TaskResponseDto.of((await this.completeTask.execute(path)).task);
  }

  @Delete(':number')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteTask',
    summary: 'Delete a task; its number is not reused',
    description: 'Deletes at once: unlike the chat assistant, the API asks for no confirmation.',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(404)
  async remove(@Param() path: TaskPathDto): Promise<void> {
    await this.deleteTask.execute(path);
  }
}
