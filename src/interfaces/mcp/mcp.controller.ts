import { type CanActivate, Controller, Delete, type ExecutionContext, Get, Injectable, Post, Req, Res, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiExcludeEndpoint,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';
import { ExecuteToolCallUseCase } from '../../application/agent/execute-tool-call.use-case';
import type { Principal } from '../../application/identity/ports/access-token-service.port';
import { bearerChannel, createToolsMcpServer } from './tools-mcp-server';
import { BearerAuthGuard } from '../http/guards/bearer-auth.guard';
import { ApiError } from '../http/shared/api-error';
import { ApiErrors } from '../http/shared/api-errors.decorator';
import { RateLimit } from '../http/shared/rate-limit';
import { ErrorResponseDto } from '../http/shared/error-response.dto';
import { OAuthProtectedResource, RequiredScope } from '../http/guards/required-scope';

export abstract class McpEndpointSettings {
  abstract readonly allowedHosts: ReadonlySet<string>;
  abstract readonly allowedOrigins: ReadonlySet<string>;
}

/**
 * The SDK's DNS-rebinding protection does not run when the transport is mounted inside
 * Nest, so the Host and Origin headers are checked here.
 */
@Injectable()
export class McpHostGuard implements CanActivate {
  constructor(private readonly settings: McpEndpointSettings) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    const host = hostName(req.headers.host ?? '');
    if (!this.settings.allowedHosts.has(host)) {
      throw new ApiError(403, 'MCP.HOST_NOT_ALLOWED', `Host '${host}' is not allowed for /mcp (see MCP_ALLOWED_HOSTS)`);
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !this.originAllowed(origin)) {
      throw new ApiError(403, 'MCP.ORIGIN_NOT_ALLOWED', `Origin '${origin}' is not allowed for /mcp (see MCP_ALLOWED_ORIGINS)`);
    }
    return true;
  }

  private originAllowed(origin: string): boolean {
    if (this.settings.allowedOrigins.has(origin.toLowerCase())) return true;
    try {
      return this.settings.allowedHosts.has(new URL(origin).hostname.toLowerCase());
    } catch {
      return false;
    }
  }
}

function hostName(hostHeader: string): string {
  const host = hostHeader.toLowerCase();
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  return host.split(':')[0];
}

class JsonRpcErrorDto {
  @ApiProperty({ example: -32000, description: 'The JSON-RPC error code' })
  code!: number;

  @ApiProperty({ example: 'Not Acceptable: Client must accept both application/json and text/event-stream' })
  message!: string;
}

/** What the SDK's transport answers when it refuses a request, instead of the error body of the rest of the API. */
class JsonRpcErrorResponseDto {
  @ApiProperty({ enum: ['2.0'] })
  jsonrpc!: '2.0';

  @ApiProperty({ type: JsonRpcErrorDto })
  error!: JsonRpcErrorDto;

  @ApiProperty({ type: String, nullable: true, description: 'null: the request was refused before its id was read' })
  id!: null;
}

const jsonRpcError = (status: number, description: string) =>
  ApiResponse({ status, description, schema: { $ref: getSchemaPath(JsonRpcErrorResponseDto) } });

/**
 * The tools, for any MCP client, as the bearer token's user. Stateless Streamable HTTP:
 * every request gets its own server and transport, so any replica can answer it.
 */
@ApiTags('mcp')
// Any credential's call needs tasks:read; the controller asks tasks:write of a tool call that changes tasks.
@RequiredScope('tasks:read')
@OAuthProtectedResource()
@Controller('mcp')
export class McpController {
  constructor(private readonly executor: ExecuteToolCallUseCase) {}

  @Post()
  // Above UseGuards: the limit counts the authenticated user, so it runs after those guards.
  @RateLimit('mcp')
  @UseGuards(McpHostGuard, BearerAuthGuard)
  @ApiBearerAuth()
  @ApiOperation({
    operationId: 'sendMcpMessage',
    summary: 'Model Context Protocol endpoint (stateless Streamable HTTP) serving the task tools',
    description:
      "The five task tools, as the bearer token's user. Send `Accept: application/json, text/event-stream`. " +
      'Stateless: every request stands alone, so GET /mcp (an event stream) and DELETE /mcp (ending a session) ' +
      'answer 405 HTTP.METHOD_NOT_ALLOWED. The transport refuses a request it cannot take with a JSON-RPC error body.',
  })
  @ApiExtraModels(JsonRpcErrorResponseDto)
  @ApiBody({ schema: { type: 'object', description: 'A JSON-RPC 2.0 message of the Model Context Protocol' } })
  @ApiOkResponse({ schema: { type: 'object', description: 'The JSON-RPC response' } })
  @ApiErrors(
    401,
    {
      status: 403,
      description:
        'MCP.HOST_NOT_ALLOWED or MCP.ORIGIN_NOT_ALLOWED: the Host or Origin header is not allowed (MCP_ALLOWED_HOSTS, MCP_ALLOWED_ORIGINS)',
    },
    413,
    429,
  )
  @ApiResponse({
    status: 400,
    description:
      'The error body (VALIDATION.FAILED, HTTP.MALFORMED_JSON) for a body that is not valid JSON, or a JSON-RPC error ' +
      'for one that is not a JSON-RPC message or names an unsupported MCP-Protocol-Version',
    schema: { oneOf: [{ $ref: getSchemaPath(ErrorResponseDto) }, { $ref: getSchemaPath(JsonRpcErrorResponseDto) }] },
  })
  @jsonRpcError(406, 'JSON-RPC error: the Accept header does not name both application/json and text/event-stream')
  @jsonRpcError(415, 'JSON-RPC error: the body is not application/json')
  async handle(@Req() req: Request & { principal?: Principal; auth?: AuthInfo }, @Res() res: Response): Promise<void> {
    const principal = req.principal!;
    req.auth = { token: '', clientId: principal.userId, scopes: [], extra: { userId: principal.userId } };
    const server = createToolsMcpServer(this.executor, bearerChannel);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }

  // Left out of the API document, where an operation that never succeeds would become a client
  // function that always fails; POST's description says that both answer 405.
  @Get()
  @ApiExcludeEndpoint()
  stream(): never {
    throw methodNotAllowed('GET');
  }

  @Delete()
  @ApiExcludeEndpoint()
  endSession(): never {
    throw methodNotAllowed('DELETE');
  }
}

function methodNotAllowed(method: string): ApiError {
  return new ApiError(405, 'HTTP.METHOD_NOT_ALLOWED', `${method} /mcp is not supported: send JSON-RPC with POST /mcp`);
}
