import { type CanActivate, Controller, Delete, type ExecutionContext, Get, Injectable, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
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

/**
 * The tools, for any MCP client, as the bearer token's user. Stateless Streamable HTTP:
 * every request gets its own server and transport, so any replica can answer it.
 */
@ApiTags('mcp')
@Controller('mcp')
export class McpController {
  constructor(private readonly executor: ExecuteToolCallUseCase) {}

  @Post()
  // Above UseGuards: the limit counts the authenticated user, so it runs after those guards.
  @RateLimit('mcp')
  @UseGuards(McpHostGuard, BearerAuthGuard)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Model Context Protocol endpoint (stateless Streamable HTTP) serving the task tools' })
  @ApiBody({ schema: { type: 'object', description: 'A JSON-RPC 2.0 message of the Model Context Protocol' } })
  @ApiOkResponse({ schema: { type: 'object', description: 'The JSON-RPC response' } })
  @ApiErrors(401, 403, 413, 429)
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

  @Get()
  @ApiOperation({ summary: 'Not offered: the endpoint is stateless and has no event stream' })
  @ApiResponse({ status: 405, type: ErrorResponseDto })
  stream(): never {
    throw methodNotAllowed('GET');
  }

  @Delete()
  @ApiOperation({ summary: 'Not offered: the endpoint is stateless and has no sessions to end' })
  @ApiResponse({ status: 405, type: ErrorResponseDto })
  endSession(): never {
    throw methodNotAllowed('DELETE');
  }
}

function methodNotAllowed(method: string): ApiError {
  return new ApiError(405, 'HTTP.METHOD_NOT_ALLOWED', `${method} /mcp is not supported: send JSON-RPC with POST /mcp`);
}
