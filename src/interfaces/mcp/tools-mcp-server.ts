import { Logger } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ExecuteToolCallUseCase } from '../../application/agent/execute-tool-call.use-case';
import { TOOL_META_KEYS, type ToolCallContext } from '../../application/agent/ports/tool-gateway.port';

const logger = new Logger('Tools');

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
 */
export function createToolsMcpServer(executor: ExecuteToolCallUseCase, channel: ToolChannel): Server {
  const server = new Server({ name: 'bridle-tools', version: '0.1.0' }, { capabilities: { tools: {} } });
  const { resolveContext } = channel;

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: executor.definitionsFor(channel.source).map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: { readOnlyHint: !tool.mutates, destructiveHint: tool.destructive, openWorldHint: false },
      ...(tool.changesExisting ? { _meta: { [TOOL_META_KEYS.changesExisting]: true } } : {}),
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const context = resolveContext(request.params._meta, extra.authInfo);
    if (!context) return errorResult('NOT_AUTHORIZED', 'No authenticated user for this call.');
    let result;
    try {
      result = await executor.execute({ tool: request.params.name, arguments: request.params.arguments, context });
    } catch (error) {
      // A bug, not an outcome: logged with its stack here, never shown to the caller.
      logger.error(
        { err: error, tool: request.params.name, userId: context.userId, decisionId: context.decisionId },
        'tool failed unexpectedly',
      );
      return errorResult('INTERNAL', 'The tool failed unexpectedly.');
    }
    if (!result.ok) return errorResult(result.code, result.message, result.details);
    const data = result.data as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
  });

  return server;
}

function errorResult(code: string, message: string, details?: unknown): CallToolResult {
  const error = details === undefined ? { code, message } : { code, message, details };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(error) }], structuredContent: error };
}

/**
 * In process, only our own chat agent holds the client end of the linked transport, so the
 * context it sends in `_meta` (built by the server from the authenticated request) is
 * trusted. The model never writes `_meta`.
 */
export const inProcessChannel: ToolChannel = {
  source: 'chat',
  resolveContext: (meta) => {
    const context = meta?.[TOOL_META_KEYS.context] as ToolCallContext | undefined;
    return context && typeof context.userId === 'string' ? context : null;
  },
};

/**
 * Over HTTP the caller is whoever the bearer token says; `_meta` is ignored, so such a call
 * is never a dry run nor a confirmed one.
 */
export const bearerChannel: ToolChannel = {
  source: 'mcp',
  resolveContext: (_meta, authInfo) => {
    const userId = authInfo?.extra?.userId;
    return typeof userId === 'string' ? { userId, source: 'mcp' } : null;
  },
};
