import { type CanActivate, Controller, Delete, type ExecutionContext, Get, Injectable, Post, Req, Res, UseGuards } from '@nestjs/common';
import {
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
import { AskInConsoleUseCase } from '../../application/chat/ask-in-console.use-case';
import { Tracer } from '../../application/shared/ports/tracer.port';
import { ExecuteToolCallUseCase } from '../../application/agent/execute-tool-call.use-case';
import type { AuthenticatedPrincipal } from '../../application/identity/ports/access-token-service.port';
import { GetTaskUseCase } from '../../application/todo/get-task.use-case';
import { ListTasksUseCase } from '../../application/todo/list-tasks.use-case';
import { TaskChanges } from '../../application/todo/ports/task-changes.port';
import { holdsScope, type Scope } from '../../domain/identity/scopes';
import { insufficientScope, ProtectedResource } from '../http/guards/bearer-challenge';
import { isBatch, refuseBatch } from './json-rpc-body';
import {
  type McpSession,
  McpSessions,
  type SessionServerFactory,
  type SessionSubscriptions,
  SessionsFullError,
  StreamTakenError,
} from './mcp-sessions';
import { ModernMcpEndpoint } from './modern/modern-mcp-endpoint';
import { serveTaskResources, TASK_RESOURCE_CAPABILITIES } from './task-resources';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
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
  /** How long a person has to answer a deletion's question in their client (MCP_CONFIRMATION_TIMEOUT_SECONDS). */
  abstract readonly confirmationTimeoutMs: number;
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

/** One JSON-RPC message as the scope check reads it; the transport validates the rest. */
interface JsonRpcMessage {
  readonly method?: unknown;
  readonly params?: { readonly name?: unknown };
}

/**
 * The tools, resources and prompts, for any MCP client, as the bearer token's user.
 *
 * Streamable HTTP in two modes. A POST `initialize` opens a **session**: its
 * `Mcp-Session-Id` (random, bound to the person) routes the later POSTs, the GET event
 * stream (resource notifications) and the DELETE that ends it, and it is what lets the
 * server ask the person (elicitation) before deleting. A POST without a session id that is
 * not `initialize` is served **statelessly**: its own server and transport, any replica,
 * nothing kept (simple clients, curl). Every request is authenticated by its bearer token
 * either way; a session id is never a credential. A POST carries one message: a batch is
 * refused. The per-user limit counts every request, whatever it carries.
 */
@ApiTags('mcp')
// Any credential's call needs tasks:read; a tool call that changes tasks needs tasks:write (scopeFor).
@RequiredScope('tasks:read')
@OAuthProtectedResource()
@Controller('mcp')
export class McpController {
  constructor(
    private readonly executor: ExecuteToolCallUseCase,
    private readonly sessions: McpSessions,
    private readonly resource: ProtectedResource,
    private readonly listTasks: ListTasksUseCase,
    private readonly getTask: GetTaskUseCase,
    private readonly changes: TaskChanges,
    private readonly askInConsole: AskInConsoleUseCase,
    private readonly tracer: Tracer,
    private readonly modern: ModernMcpEndpoint,
    private readonly settings: McpEndpointSettings,
  ) {}

  @Post()
  // Above UseGuards: the limit counts the authenticated user, so it runs after those guards.
  // Every request counts, whatever its body: a call, a notification, a response, a refused batch.
  @RateLimit('mcp')
  @UseGuards(McpHostGuard, BearerAuthGuard)
  @ApiOperation({
    operationId: 'sendMcpMessage',
    summary: 'Model Context Protocol endpoint (Streamable HTTP): task tools, task resources and prompts',
    description:
      "The five task tools, the tasks as resources (bridle://tasks, bridle://tasks/{number}) and two prompts, as the bearer token's user. " +
      'Send `Accept: application/json, text/event-stream`. An `initialize` opens a session (`Mcp-Session-Id` in the answer): send the id ' +
      'with every later request, GET /mcp with it for the event stream, DELETE /mcp with it to end it; an unknown, closed or foreign ' +
      'id is 404, and the client initializes again. Without a session id any other message is served statelessly. ' +
      'A request of the 2026-07-28 revision (the protocol version in its `_meta`, with the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers) ' +
      'is served statelessly as that revision: no `initialize` and no session; a confirmation is an `input_required` result the client answers ' +
      'by calling again with `inputResponses` and `requestState`; a header that disagrees with the body is 400 HeaderMismatch (-32020). One message per request: ' +
      'a JSON-RPC batch (a JSON array, even an empty one) is refused with 400 and a JSON-RPC Invalid Request (-32600), and nothing in it runs. ' +
      'Every request to /mcp counts one against MCP_RATE_LIMIT_PER_MINUTE: a call, a notification, a response, a refused batch, GET and DELETE. ' +
      'A message needing a scope the token lacks is 403 AUTH.INSUFFICIENT_SCOPE before anything runs. The transport refuses a request it cannot take with a JSON-RPC error body.',
  })
  @ApiExtraModels(JsonRpcErrorResponseDto)
  @ApiBody({ schema: { type: 'object', description: 'One JSON-RPC 2.0 message of the Model Context Protocol (no batch)' } })
  @ApiOkResponse({
    description: 'The JSON-RPC response, as JSON or as an event stream',
    schema: { type: 'object', description: 'The JSON-RPC response, as JSON or as an event stream' },
  })
  @ApiErrors({ status: 403, description: 'AUTH.INSUFFICIENT_SCOPE: a tool call that changes tasks needs tasks:write' }, 413)
  @ApiResponse({
    status: 400,
    description:
      'The error body (VALIDATION.FAILED, HTTP.MALFORMED_JSON) for a body that is not valid JSON, or a JSON-RPC error ' +
      'for a batch (-32600), for one that is not a JSON-RPC message or names an unsupported MCP-Protocol-Version (2026-07-28: -32022), ' +
      'or for 2026-07-28 standard headers missing or disagreeing with the body (-32020)',
    schema: { oneOf: [{ $ref: getSchemaPath(ErrorResponseDto) }, { $ref: getSchemaPath(JsonRpcErrorResponseDto) }] },
  })
  @jsonRpcError(
    404,
    'JSON-RPC error: no such session (unknown, closed, idle too long, or another person’s): initialize again; ' +
      'or, for a 2026-07-28 request, a method the server does not serve (-32601)',
  )
  @jsonRpcError(406, 'JSON-RPC error: the Accept header does not name both application/json and text/event-stream')
  @jsonRpcError(415, 'JSON-RPC error: the body is not application/json')
  async handle(@Req() req: McpRequest, @Res() res: Response): Promise<void> {
    // Before the transport sees the body: the SDK would still run up to 100 calls of a batch.
    if (isBatch(req.body)) return refuseBatch(res);
    const principal = req.principal!;
    this.checkScope(req.body as JsonRpcMessage | null, principal, res);
    req.auth = authInfo(principal);
    if (await this.modern.serves(req)) return this.modern.serve(req, res, principal);
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = await this.session(sessionId, req);
      if (!session) return sessionNotFound(res);
      return this.sessions.serve(session, res, () => session.transport.handle(req, res, req.auth!, req.body));
    }
    if (isInitializeRequest(req.body)) {
      return this.sessionsOrFull(() =>
        this.sessions.open(principal.userId, req.auth!, req.body as { params?: unknown }, res, this.sessionServer),
      );
    }

    const server = this.buildServer(principal.userId, undefined, () => undefined);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }

  // Left out of the API document: parts of the session protocol POST's description names,
  // not operations a generated client would call. Each costs work (a session restored from
  // the database, a row ended), so the per-user limit counts them as it counts POSTs.
  @Get()
  @RateLimit('mcp')
  @UseGuards(McpHostGuard, BearerAuthGuard)
  @ApiExcludeEndpoint()
  stream(@Req() req: McpRequest, @Res() res: Response): Promise<void> {
    return this.inSession(req, res, 'GET');
  }

  @Delete()
  @RateLimit('mcp')
  @UseGuards(McpHostGuard, BearerAuthGuard)
  @ApiExcludeEndpoint()
  endSession(@Req() req: McpRequest, @Res() res: Response): Promise<void> {
    return this.inSession(req, res, 'DELETE');
  }

  private async inSession(req: McpRequest, res: Response, method: 'GET' | 'DELETE'): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId !== 'string') throw methodNotAllowed(method);
    req.auth = authInfo(req.principal!);
    if (method === 'DELETE') {
      if (!(await this.sessions.end(sessionId, req.principal!.userId))) return sessionNotFound(res);
      res.status(200).end();
      return;
    }
    const session = await this.session(sessionId, req);
    if (!session) return sessionNotFound(res);
    try {
      const opened = await this.sessions.openStream(session, res, () => session.transport.handle(req, res, req.auth!));
      if (!opened) sessionNotFound(res);
    } catch (error) {
      if (!(error instanceof StreamTakenError)) throw error;
      res
        .status(409)
        .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Conflict: a newer GET took this session’s event stream' }, id: null });
    }
  }

  /** The person's session on this replica, restored from the store if this replica holds no copy yet. */
  private session(id: string, req: McpRequest): Promise<McpSession | undefined> {
    if (!SESSION_ID.test(id)) return Promise.resolve(undefined);
    return this.sessionsOrFull(() => this.sessions.find(id, req.principal!.userId, req.auth!, this.sessionServer));
  }

  private async sessionsOrFull<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof SessionsFullError) {
        throw new ApiError(
          503,
          'MCP.SESSIONS_FULL',
          'This server is serving as many MCP sessions as it may; retry later, or send requests without a session',
          { retryAfterSeconds: SESSIONS_FULL_RETRY_SECONDS },
        );
      }
      throw error;
    }
  }

  private readonly sessionServer: SessionServerFactory = ({ userId, subscriptions }, onClose) =>
    this.buildServer(userId, subscriptions, onClose);

  private buildServer(userId: string, subscriptions: SessionSubscriptions | undefined, onClose: (cleanup: () => void) => void) {
    const server = createToolsMcpServer(this.executor, bearerChannel, {
      capabilities: TASK_RESOURCE_CAPABILITIES,
      askInConsole: this.askInConsole,
      confirmationTimeoutMs: this.settings.confirmationTimeoutMs,
      tracer: this.tracer,
      instructions:
        "Bridle holds this person's tasks. Use the tools to read and change them; the resources show the list; " +
        'deleting asks the person first.',
    });
    onClose(serveTaskResources(server, userId, { listTasks: this.listTasks, getTask: this.getTask, changes: this.changes }, subscriptions));
    return server;
  }

  /** 403 with the scope to ask for, before the transport or any tool sees a message the token may not send. */
  private checkScope(message: JsonRpcMessage | null, principal: AuthenticatedPrincipal, res: Response): void {
    const scope = this.scopeFor(message);
    if (!holdsScope(principal.scopes, scope)) {
      throw insufficientScope(res, this.resource, scope, `This token lacks the scope ${scope}`);
    }
  }

  private scopeFor(message: JsonRpcMessage | null): Scope {
    if (message?.method !== 'tools/call') return 'tasks:read';
    const tool = this.executor.definitionsFor('mcp').find((definition) => definition.name === message.params?.name);
    // An unknown tool is refused by the server, read-only: nothing to protect.
    return tool?.mutates ? 'tasks:write' : 'tasks:read';
  }
}

type McpRequest = Request & { principal?: AuthenticatedPrincipal; auth?: AuthInfo };

/** Session ids are random UUIDs (McpSessions.open); anything else is unknown without asking the store. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SESSIONS_FULL_RETRY_SECONDS = 5;

function authInfo(principal: AuthenticatedPrincipal): AuthInfo {
  return { token: '', clientId: principal.userId, scopes: [...principal.scopes], extra: { userId: principal.userId } };
}

/** The spec's answer to a session id this server does not hold for this person: the client starts a new session. */
function sessionNotFound(res: Response): void {
  res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found: initialize a new session' }, id: null });
}

function methodNotAllowed(method: string): ApiError {
  return new ApiError(
    405,
    'HTTP.METHOD_NOT_ALLOWED',
    `${method} /mcp needs a session: send Mcp-Session-Id, from the answer to an initialize request`,
  );
}
