import { Body, Controller, Delete, Get, HttpCode, type OnModuleDestroy, Param, Patch, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AddTaskUseCase } from '../../../application/todo/add-task.use-case';
import { CompleteTaskUseCase } from '../../../application/todo/complete-task.use-case';
import { DeleteTaskUseCase } from '../../../application/todo/delete-task.use-case';
import { GetTaskUseCase } from '../../../application/todo/get-task.use-case';
import { ListTasksUseCase } from '../../../application/todo/list-tasks.use-case';
import { UpdateTaskUseCase } from '../../../application/todo/update-task.use-case';
import type { AuthenticatedPrincipal } from '../../../application/identity/ports/access-token-service.port';
import { TaskChanges } from '../../../application/todo/ports/task-changes.port';
import { AdmitApiRequest } from '../../../application/policy/admit-api-request';
import type { TaskApiRequest } from '../../../domain/policy/api-request';
import { TASKS_PER_USER_MAX } from '../../../domain/todo/task';
import { BearerAuthGuard, CurrentPrincipal, OwnUserGuard } from '../guards/bearer-auth.guard';
import { ApiErrors } from '../shared/api-errors.decorator';
import { ApiError } from '../shared/api-error';
import { CreateTaskRequestDto, ListTasksQueryDto, TaskPathDto, TaskResponseDto, UpdateTaskRequestDto, UserPathDto } from './task.dto';
import { RequiredScope } from '../guards/required-scope';
import { SUPERSEDED_EVENT, TASK_EVENT_STREAMS, TaskEventStreams, TASKS_CHANGED_EVENT } from './task-event-streams';
import { RateLimit } from '../shared/rate-limit';

const TASK_BUSY = {
  status: 409,
  description: 'TODO.TASK_BUSY: the task kept changing under this request; nothing was changed, try again',
} as const;

/** What the policy in force can answer a route that changes tasks with (docs/policies.md, source `api`). */
export const POLICY_REFUSALS = [
  {
    status: 403,
    description: "POLICY.DENIED: a rule of the admins' policy refuses this here; the message gives their reason and the rule",
  },
  {
    status: 429,
    description:
      'POLICY.LIMIT_REACHED: a limit of the admins’ policy is reached; `Retry-After` says when its window ends. Nothing was done',
  },
] as const;

@ApiTags('tasks')
@ApiErrors(400)
@RequiredScope('tasks:read', 'tasks:write')
@RateLimit('api')
@UseGuards(BearerAuthGuard, OwnUserGuard)
@Controller('api/:userId/tasks')
export class TasksController implements OnModuleDestroy {
  private readonly streams: TaskEventStreams;

  constructor(
    private readonly addTask: AddTaskUseCase,
    private readonly listTasks: ListTasksUseCase,
    private readonly getTask: GetTaskUseCase,
    private readonly updateTask: UpdateTaskUseCase,
    private readonly completeTask: CompleteTaskUseCase,
    private readonly deleteTask: DeleteTaskUseCase,
    private readonly policy: AdmitApiRequest,
    changes: TaskChanges,
  ) {
    this.streams = new TaskEventStreams(changes);
  }

  /** Before TaskChanges goes: the open streams unsubscribe, and their clients are told to reconnect elsewhere. */
  onModuleDestroy(): void {
    this.streams.endAll();
  }

  @Get()
  @ApiOperation({
    operationId: 'listTasks',
    summary: "List the user's tasks in number order",
    description: `All of them (a list holds at most ${TASKS_PER_USER_MAX}), or only the pending or only the completed ones.`,
  })
  @ApiOkResponse({ type: [TaskResponseDto], description: 'The tasks' })
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
  @ApiCreatedResponse({ type: TaskResponseDto, description: 'The task, added' })
  @ApiErrors(
    { status: 409, description: 'TODO.TASK_LIMIT_REACHED: the list holds the most tasks it may; delete some' },
    413,
    ...POLICY_REFUSALS,
  )
  async create(
    @Param() path: UserPathDto,
    @Body() body: CreateTaskRequestDto,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
  ): Promise<TaskResponseDto> {
    await this.admit({ route: 'create' }, { ...body }, principal);
    return TaskResponseDto.of(await this.addTask.execute({ userId: path.userId, ...body }));
  }

  // Before ':number', which would otherwise take "events" for a task number.
  @Get('events')
  @ApiOperation({
    operationId: 'streamTaskEvents',
    summary: "The user's task changes, as Server-Sent Events",
    description:
      `First a retry hint, then \`${TASKS_CHANGED_EVENT}\` ({}) each time one of the user's tasks changes, whichever way ` +
      '(this API, a chat turn, an MCP client, on any replica): re-read the list then. A comment line comes every ' +
      `${TASK_EVENT_STREAMS.keepAliveMs / 1000} s while nothing changes. The stream stays open until the client leaves; it ` +
      `ends after about ${TASK_EVENT_STREAMS.lifetimeMs / 60_000} minutes (open it again: the token is checked again), ` +
      `with \`shutdown\` when the replica stops, and with \`${SUPERSEDED_EVENT}\` ({limit}) when the user opens more than ` +
      `${TASK_EVENT_STREAMS.perPerson}: the oldest gives way to the newest. Changes made while no stream was open are not ` +
      'replayed: re-read the list after reconnecting.',
  })
  @ApiOkResponse({
    description: 'An event stream that stays open',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  events(@Param() path: UserPathDto, @CurrentPrincipal() principal: AuthenticatedPrincipal, @Res() res: Response): void {
    // The account's own id, as the store spells it (the path matched it ignoring case).
    this.streams.open(principal.userId, res);
  }

  @Get(':number')
  @ApiOperation({ operationId: 'getTask', summary: 'One task by its number', description: 'The task with this per-user number.' })
  @ApiOkResponse({ type: TaskResponseDto, description: 'The task' })
  @ApiErrors(404)
  async get(@Param() path: TaskPathDto): Promise<TaskResponseDto> {
    return TaskResponseDto.of(await this.getTask.execute(path));
  }

  @Patch(':number')
  @ApiOperation({
    operationId: 'updateTask',
    summary: 'Change title, description, priority or completion',
    description:
      'Only the fields sent change (at least one); description null clears it, completed false reopens the task. The ' +
      "admins' policy decides it as complete_task when it completes and as update_task when it changes a field or " +
      'reopens; both when it does both.',
  })
  @ApiOkResponse({ type: TaskResponseDto, description: 'The task, changed' })
  @ApiErrors(404, TASK_BUSY, 413, ...POLICY_REFUSALS)
  async update(
    @Param() path: TaskPathDto,
    @Body() body: UpdateTaskRequestDto,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
  ): Promise<TaskResponseDto> {
    if (Object.values(body).every((value) => value === undefined)) {
      throw new ApiError(400, 'VALIDATION.FAILED', 'Send at least one of title, description, priority, completed');
    }
    await this.admit({ route: 'change', changes: body }, { number: path.number, ...body }, principal);
    return TaskResponseDto.of((await this.updateTask.execute({ ...path, changes: body })).task);
  }

  @Post(':number/complete')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'completeTask',
    summary: 'Mark a task completed (idempotent)',
    description: 'Completing a completed task changes nothing and keeps its completion time.',
  })
  @ApiOkResponse({ type: TaskResponseDto, description: 'The task, completed' })
  @ApiErrors(404, TASK_BUSY, ...POLICY_REFUSALS)
  async complete(@Param() path: TaskPathDto, @CurrentPrincipal() principal: AuthenticatedPrincipal): Promise<TaskResponseDto> {
    await this.admit({ route: 'complete' }, { number: path.number }, principal);
    return TaskResponseDto.of((await this.completeTask.execute(path)).task);
  }

  @Delete(':number')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteTask',
    summary: 'Delete a task; its number is not reused',
    description:
      'Deletes at once: unlike the chat assistant, the API asks for no confirmation (the request is the person’s own; ' +
      'a policy rule that asks the person lets it run).',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(404, ...POLICY_REFUSALS)
  async remove(@Param() path: TaskPathDto, @CurrentPrincipal() principal: AuthenticatedPrincipal): Promise<void> {
    await this.admit({ route: 'delete' }, { number: path.number }, principal);
    await this.deleteTask.execute(path);
  }

  /**
   * The policy in force on a change the person asks for over the API, decided as every tool
   * call it amounts to (a PATCH that completes is complete_task): refused (403, 429) before
   * anything is read or written. A limit counts the request, also one that then finds no such
   * task, as a tool call's would. A refusal is audited.
   */
  private async admit(request: TaskApiRequest, args: Record<string, unknown>, principal: AuthenticatedPrincipal): Promise<void> {
    await this.policy.admit(request, args, principal.userId);
  }
}
