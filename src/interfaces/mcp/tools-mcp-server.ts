import { Logger } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  type ElicitResult,
  ListToolsRequestSchema,
  McpError,
  type ServerCapabilities,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { ExecuteToolCallUseCase } from '../../application/agent/execute-tool-call.use-case';
import type { AskInConsoleUseCase } from '../../application/chat/ask-in-console.use-case';
import {
  TOOL_CALL_MODE_KINDS,
  TOOL_META_KEYS,
  type ToolCallContext,
  type ToolResult,
} from '../../application/agent/ports/tool-gateway.port';
import type { DryRunResult } from '../../application/agent/ports/toolbox.port';
import type { Tracer } from '../../application/shared/ports/tracer.port';
import {
  askedInConsoleInstead,
  confirmationForm,
  errorResult,
  inToolCallSpan,
  listedTools,
  notConfirmed,
  toolCallResult,
  unexpectedFailure,
} from './tool-calls';

const logger = new Logger('Tools');

/** How long the person has to answer a confirmation asked through their MCP client, unless told otherwise (MCP_CONFIRMATION_TIMEOUT_SECONDS). */
export const ELICITATION_TIMEOUT_MS = 5 * 60 * 1000;

/** Where the server learns whose call it is; see the two channels below. */
export type CallContextResolver = (meta: Record<string, unknown> | undefined, authInfo: AuthInfoLike | undefined) => ToolCallContext | null;

export interface AuthInfoLike {
  readonly extra?: Record<string, unknown>;
}

/** Who is at the other end: the tools are described for them, and their calls' context resolved. */
export interface ToolChannel {
  readonly source: 'chat' | 'mcp';
  readonly resolveContext: CallContextResolver;
}

/**
 * An MCP server exposing tools through ExecuteToolCallUseCase, which validates, audits and
 * runs them. Built on the SDK's low-level Server because our tools are defined once as
 * plain JSON Schema (the same schema every model adapter sends), not as zod shapes.
 *
 * A destructive call from a client that can be asked (it declared `elicitation`, on a
 * session that can carry the question) goes the way a chat confirmation does: a dry run
 * (audited `confirmation_required`) resolves exactly what would go, the person is asked in
 * their client, and only their accept runs the confirmed call, once. Otherwise the use case
 * decides (MCP_DESTRUCTIVE_TOOLS).
 */
export function createToolsMcpServer(
  executor: ExecuteToolCallUseCase,
  channel: ToolChannel,
  extra: {
    capabilities?: ServerCapabilities;
    instructions?: string;
    /** Where a destructive call a client cannot be asked about is asked instead (the console); without it, the chat is named. */
    askInConsole?: AskInConsoleUseCase;
    /** How long the person has to answer an elicitation; unanswered by then, the question expires (ELICITATION_TIMEOUT_MS). */
    confirmationTimeoutMs?: number;
    /**
     * Each `tools/call` a client sends runs in a server span (`tools/call {tool}`, the MCP
     * semantic conventions). Not for the chat's in-process channel: its calls already have
     * the agent's `execute_tool` span.
     */
    tracer?: Tracer;
  } = {},
): Server {
  const server = new Server(
    { name: 'bridle-tools', version: '0.1.0' },
    { capabilities: { tools: {}, ...extra.capabilities }, ...(extra.instructions ? { instructions: extra.instructions } : {}) },
  );
  const { resolveContext } = channel;

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools(executor, channel.source) }));

  server.setRequestHandler(CallToolRequestSchema, (request, requestExtra) =>
    inToolCallSpan(
      extra.tracer,
      executor,
      {
        tool: request.params.name,
        arguments: request.params.arguments,
        requestId: requestExtra.requestId,
        sessionId: requestExtra.sessionId,
      },
      () => answer(request, requestExtra),
    ),
  );

  async function answer(
    request: CallToolRequest,
    requestExtra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  ): Promise<CallToolResult> {
    const context = resolveContext(request.params._meta, requestExtra.authInfo);
    if (!context) return errorResult('NOT_AUTHORIZED', 'No authenticated user for this call.');
    const { name, arguments: args } = request.params;
    try {
      // The policy in force says which calls the person must see first (docs/policies.md).
      const needsYes = channel.source === 'mcp' && (await executor.asksThePerson(name, args, context)) !== null;
      if (needsYes && canElicit(server)) {
        const timeoutMs = extra.confirmationTimeoutMs ?? ELICITATION_TIMEOUT_MS;
        return toolCallResult(
          await confirmedByThePerson(server, executor, { tool: name, args, context, timeoutMs }, requestExtra.requestId),
        );
      }
      if (needsYes) return toolCallResult(await askedInConsoleInstead(executor, extra.askInConsole, name, args, context));
      return toolCallResult(await executor.execute({ tool: name, arguments: args, context }));
    } catch (error) {
      return unexpectedFailure(error, name, context);
    }
  }

  return server;
}

/** Form-mode elicitation: what a client declares with `elicitation: {}` or `elicitation: {form: {}}`. */
function canElicit(server: Server): boolean {
  const elicitation = server.getClientCapabilities()?.elicitation;
  return elicitation !== undefined && (Object.keys(elicitation).length === 0 || 'form' in elicitation);
}

/**
 * Dry run, question on the session's stream, and on the person's accept the call exactly as
 * the question showed it. Otherwise nothing is deleted, and the client is told how the
 * question ended: the person said no (`decline`, or an accept without the box ticked), closed
 * it without answering (`cancel`: no "no"), nobody answered before `timeoutMs` (it expired
 * unanswered: no "no" either), or it could not be asked at all.
 */
async function confirmedByThePerson(
  server: Server,
  executor: ExecuteToolCallUseCase,
  call: { tool: string; args: unknown; context: ToolCallContext; timeoutMs: number },
  requestId: string | number,
): Promise<ToolResult> {
  const { tool, context, timeoutMs } = call;
  const dryRun = await executor.execute({ tool, arguments: call.args, context: { ...context, mode: { kind: 'dry-run' } } });
  if (!dryRun.ok) return dryRun;
  const question = dryRun.data as DryRunResult;
  const form = confirmationForm(tool, question, executor.words);
  let answer: ElicitResult;
  try {
    answer = await server.elicitInput(
      { message: form.message, requestedSchema: form.requestedSchema },
      { relatedRequestId: requestId, timeout: timeoutMs },
    );
  } catch (error) {
    // The SDK's own timer, at timeoutMs: the question was put and nobody answered it in time.
    if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number))
      return notConfirmed(form.asked, 'expired', timeoutMs);
    logger.warn({ err: error, userId: context.userId }, 'the confirmation could not be asked; nothing was deleted');
    return notConfirmed(form.asked, 'failed', timeoutMs);
  }
  if (answer.action === 'cancel') return notConfirmed(form.asked, 'dismissed', timeoutMs);
  if (answer.action !== 'accept' || answer.content?.confirm !== true) return notConfirmed(form.asked, 'decided-no', timeoutMs);
  return executor.execute({ tool, arguments: question.arguments, context: { ...context, mode: { kind: 'confirmed' } } });
}

/**
 * In process, only our own chat agent holds the client end of the linked transport, so the
 * context it sends in `_meta` (built by the server from the authenticated request, its
 * `mode` included) is trusted. The model never writes `_meta`.
 */
export const inProcessChannel: ToolChannel = {
  source: 'chat',
  resolveContext: (meta) => {
    const context = meta?.[TOOL_META_KEYS.context] as Partial<ToolCallContext> | undefined;
    if (typeof context?.userId !== 'string' || !context.mode || !TOOL_CALL_MODE_KINDS.includes(context.mode.kind)) return null;
    return context as ToolCallContext;
  },
};

/**
 * Over HTTP the caller is whoever the bearer token says; `_meta` is ignored, so such a call
 * is a plain `run`, never a dry run nor a confirmed one unless the server itself makes it one.
 */
export const bearerChannel: ToolChannel = {
  source: 'mcp',
  resolveContext: (_meta, authInfo) => {
    const userId = authInfo?.extra?.userId;
    return typeof userId === 'string' ? { userId, source: 'mcp', mode: { kind: 'run' } } : null;
  },
};
