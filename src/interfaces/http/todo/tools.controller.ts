import { Body, Controller, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { ExecuteToolCallUseCase } from '../../../application/agent/execute-tool-call.use-case';
import type { ToolResult } from '../../../application/agent/ports/tool-gateway.port';
import type { AuthenticatedPrincipal } from '../../../application/identity/ports/access-token-service.port';
import { TodoTools } from '../../../application/todo/tools/todo-tools';
import { CONFIRMATION_REQUIRED } from '../../../domain/agent/confirmation';
import { failureOfToolError } from '../../../domain/agent/failures';
import { POLICY_DENIED, POLICY_LIMIT_REACHED } from '../../../domain/policy/policy';
import { TODO_TOOL_ERRORS } from '../../../domain/todo/tool-errors';
import { BearerAuthGuard, CurrentPrincipal, OwnUserGuard } from '../guards/bearer-auth.guard';
import { RequiredScope } from '../guards/required-scope';
import { ApiError } from '../shared/api-error';
import { ApiErrors } from '../shared/api-errors.decorator';
import { RateLimit } from '../shared/rate-limit';
import { POLICY_REFUSALS } from './tasks.controller';
import { UserPathDto } from './task.dto';

export class ToolPathDto extends UserPathDto {
  @ApiProperty({ example: 'complete_task', description: 'A todo tool the API may call (MCP tools/list names them)' })
  @Matches(/^[a-z][a-z0-9_]{0,63}$/, { message: 'name must be a tool name: lowercase letters, digits and _' })
  name!: string;
}

/**
 * `POST /api/:userId/tools/:name`: any todo tool whose sources include `api`, with the body as
 * its arguments, run as every other door runs one (ExecuteToolCallUseCase, source `api`):
 * validated, decided by the policy in force, audited, counted.
 */
@ApiTags('tools')
@RequiredScope('tasks:write')
@RateLimit('api')
@UseGuards(BearerAuthGuard, OwnUserGuard)
@Controller('api/:userId/tools')
export class ToolsController {
  constructor(
    private readonly executor: ExecuteToolCallUseCase,
    private readonly tools: TodoTools,
  ) {}

  @Post(':name')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'runTool',
    summary: 'Call a todo tool, as an MCP client or the assistant would',
    description:
      "The body is the tool's arguments (its inputSchema; {} when it needs none); the answer is its result (its " +
      "outputSchema). The admins' policy decides the call with source api, and it is audited like any tool call. A call " +
      'the policy puts to the person is not run here: 409 TOOLS.CONFIRMATION_REQUIRED says how to ask for it in the chat.',
  })
  @ApiBody({ schema: { type: 'object', additionalProperties: true }, description: "The tool's arguments" })
  @ApiOkResponse({ schema: { type: 'object', additionalProperties: true }, description: "The tool's result" })
  @ApiErrors(
    { status: 400, description: 'VALIDATION.FAILED: the arguments do not match the tool (the message names the field)' },
    {
      status: 404,
      description: 'TOOLS.NOT_FOUND: no tool of this name may be called here; TOOLS.TARGET_NOT_FOUND: the arguments name nothing there is',
    },
    {
      status: 409,
      description:
        "TOOLS.CONFIRMATION_REQUIRED: the admins' policy puts this call to the person first (the message says how); " +
        'TOOLS.REFUSED: the tool refused it (the message says why). Nothing was done',
    },
    413,
    ...POLICY_REFUSALS,
  )
  async call(@Param() path: ToolPathDto, @Body() body: unknown, @CurrentPrincipal() principal: AuthenticatedPrincipal): Promise<unknown> {
    if (!this.tools.callableFrom(path.name, 'api')) {
      throw new ApiError(404, 'TOOLS.NOT_FOUND', `There is no tool named "${path.name}" that the API may call`);
    }
    const result = await this.executor.execute({
      tool: path.name,
      arguments: body ?? {},
      context: { userId: principal.userId, source: 'api', mode: { kind: 'run' } },
    });
    if (result.ok) return result.data;
    throw refusal(result);
  }
}

/** A tool's error result as the HTTP error it is: the policy's refusals as on the task routes, the rest by failure class. */
function refusal(result: ToolResult & { ok: false }): ApiError {
  const { code, message } = result;
  const details = typeof result.details === 'object' && result.details !== null ? (result.details as Record<string, unknown>) : {};
  if (code === POLICY_DENIED) return new ApiError(403, 'POLICY.DENIED', message);
  if (code === POLICY_LIMIT_REACHED) {
    const retryAfterSeconds = typeof details.retryAfterSeconds === 'number' ? details.retryAfterSeconds : undefined;
    return new ApiError(429, 'POLICY.LIMIT_REACHED', message, { retryAfterSeconds });
  }
  if (code === CONFIRMATION_REQUIRED) return new ApiError(409, 'TOOLS.CONFIRMATION_REQUIRED', message);
  switch (failureOfToolError(code, TODO_TOOL_ERRORS)) {
    case 'INVALID_ARGUMENTS':
      return new ApiError(400, 'VALIDATION.FAILED', message);
    case 'TOOL_NOT_FOUND':
      return new ApiError(404, 'TOOLS.NOT_FOUND', message);
    case 'NOT_FOUND':
      return new ApiError(404, 'TOOLS.TARGET_NOT_FOUND', message);
    default:
      return new ApiError(409, 'TOOLS.REFUSED', message);
  }
}
