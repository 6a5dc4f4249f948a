import { Logger } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  type ElicitResult,
  ListToolsRequestSchema,
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
  CONFIRMATION_REQUIRED,
  type ConfirmationTargets,
  confirmationTargets,
  QUESTION_NAMED_MAX,
  withoutChatReplyHint,
} from '../../domain/agent/confirmation';

const logger = new Logger('Tools');

/** How long the person has to answer a confirmation asked through their MCP client. */
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

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: executor.definitionsFor(channel.source).map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: { readOnlyHint: !tool.mutates, destructiveHint: tool.destructive, openWorldHint: false },
      ...(tool.changesExisting ? { _meta: { [TOOL_META_KEYS.changesExisting]: true } } : {}),
    })),
  }));

  const { tracer } = extra;
  server.setRequestHandler(CallToolRequestSchema, (request, requestExtra) => {
    if (!tracer?.enabled) return answer(request, requestExtra);
    // The name is the client's word: only one of our tools' names goes into a span's name.
    const tool = executor.isTool(request.params.name) ? request.params.name : 'unknown_tool';
    const attributes = {
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': tool,
      'jsonrpc.request.id': String(requestExtra.requestId),
      'mcp.session.id': requestExtra.sessionId,
      'network.transport': 'tcp',
      ...(tracer.capturesContent ? { 'gen_ai.tool.call.arguments': JSON.stringify(request.params.arguments ?? {}) } : {}),
    };
    return tracer.inSpan(`tools/call ${tool}`, { kind: 'server', attributes }, async (span) => {
      const result = await answer(request, requestExtra);
      if (result.isError) {
        // A refusal is a result, not a JSON-RPC error: the conventions' tool_error, and our code beside it.
        const code = (result.structuredContent as { code?: unknown } | undefined)?.code;
        span.fail('tool_error');
        span.set({ 'bridle.tool.error_code': typeof code === 'string' ? code : undefined });
      } else if (tracer.capturesContent) {
        span.set({ 'gen_ai.tool.call.result': JSON.stringify(result.structuredContent ?? {}) });
      }
      return result;
    });
  });

  async function answer(
    request: CallToolRequest,
    requestExtra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  ): Promise<CallToolResult> {
    const context = resolveContext(request.params._meta, requestExtra.authInfo);
    if (!context) return errorResult('NOT_AUTHORIZED', 'No authenticated user for this call.');
    const { name } = request.params;
    const call = (args: unknown, callContext: ToolCallContext) => executor.execute({ tool: name, arguments: args, context: callContext });
    let result: ToolResult;
    try {
      // The policy in force says which calls the person must see first (docs/policies.md).
      const needsYes = channel.source === 'mcp' && (await executor.asksThePerson(name, request.params.arguments, context));
      if (needsYes && canElicit(server)) {
        result = await confirmedByThePerson(server, name, request.params.arguments, context, call, requestExtra.requestId);
      } else if (needsYes) {
        // A client that cannot ask still learns what is true first: a task that is not there is
        // not found; only what would really go is sent to the chat to confirm.
        const dryRun = await call(request.params.arguments, { ...context, mode: { kind: 'dry-run' } });
        result = dryRun.ok ? await call(request.params.arguments, context) : dryRun;
        if (dryRun.ok && !result.ok && result.code === CONFIRMATION_REQUIRED && extra.askInConsole) {
          result = await askedInConsole(extra.askInConsole, name, dryRun.data as DryRunResult, context, result);
        }
      } else {
        result = await call(request.params.arguments, context);
      }
    } catch (error) {
      // A bug, not an outcome: logged with its stack here, never shown to the caller.
      logger.error({ err: error, tool: name, userId: context.userId, decisionId: context.decisionId }, 'tool failed unexpectedly');
      return errorResult('INTERNAL', 'The tool failed unexpectedly.');
    }
    if (!result.ok) return errorResult(result.code, result.message, result.details);
    const data = result.data as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
  }

  return server;
}

/**
 * The refusal (already audited) with the question asked in the console instead: the client
 * learns where it waits. If it cannot be stored, the refusal as it was (confirm in the chat).
 */
async function askedInConsole(
  askInConsole: AskInConsoleUseCase,
  tool: string,
  question: DryRunResult,
  context: ToolCallContext,
  refusal: ToolResult & { ok: false },
): Promise<ToolResult> {
  try {
    const asked = await askInConsole.ask(context.userId, { tool, arguments: question.arguments, prompt: question.prompt });
    return { ...refusal, message: asked.message, details: { conversationId: asked.conversationId, confirmationId: asked.confirmationId } };
  } catch (error) {
    logger.warn(
      { err: error, userId: context.userId },
      'the confirmation could not be stored for the console; the client is sent to the chat',
    );
    return refusal;
  }
}

/** Form-mode elicitation: what a client declares with `elicitation: {}` or `elicitation: {form: {}}`. */
function canElicit(server: Server): boolean {
  const elicitation = server.getClientCapabilities()?.elicitation;
  return elicitation !== undefined && (Object.keys(elicitation).length === 0 || 'form' in elicitation);
}

/**
 * Dry run, question, and on the person's accept the call exactly as the question showed it.
 * The question is the server's own, with what the call will delete read from that call (the
 * model's words never reach it). Declined, cancelled, unanswered or failed: nothing is
 * deleted, and the result says so as an outcome (not an error a model would retry).
 */
async function confirmedByThePerson(
  server: Server,
  tool: string,
  args: unknown,
  context: ToolCallContext,
  call: (args: unknown, context: ToolCallContext) => Promise<ToolResult>,
  requestId: string | number,
): Promise<ToolResult> {
  const dryRun = await call(args, { ...context, mode: { kind: 'dry-run' } });
  if (!dryRun.ok) return dryRun;
  const question = dryRun.data as DryRunResult;
  const asked = withoutChatReplyHint(question.prompt);
  const targets = confirmationTargets({ tool, arguments: question.arguments });
  const { count } = targets;
  let answer: ElicitResult;
  try {
    answer = await server.elicitInput(
      {
        message: elicitationMessage(asked, targets),
        requestedSchema: {
          type: 'object',
          properties: {
            confirm: {
              type: 'boolean',
              title: `Yes, delete ${count === 1 ? '1 task' : `${count} tasks`}`,
              description: asked,
              default: false,
            },
          },
          required: ['confirm'],
        },
      },
      { relatedRequestId: requestId, timeout: ELICITATION_TIMEOUT_MS },
    );
  } catch (error) {
    logger.warn({ err: error, userId: context.userId }, 'the confirmation could not be asked; nothing was deleted');
    return notConfirmed(asked, 'The person could not be asked, so nothing was deleted.');
  }
  if (answer.action !== 'accept' || answer.content?.confirm !== true) {
    return notConfirmed(asked, `The person said no (${answer.action === 'accept' ? 'decline' : answer.action}), so nothing was deleted.`);
  }
  return call(question.arguments, { ...context, mode: { kind: 'confirmed' } });
}

/** The question, then, when it names only a few, what "yes" deletes one per line (as the chat's card lists it). */
function elicitationMessage(asked: string, targets: ConfirmationTargets): string {
  if (targets.count <= QUESTION_NAMED_MAX) return asked;
  const more = targets.count - targets.items.length;
  return [asked, '', ...targets.items.map((item) => `- ${item}`), ...(more > 0 ? [`… and ${more} more`] : [])].join('\n');
}

function notConfirmed(asked: string, message: string): ToolResult {
  return { ok: true, data: { deleted: [], confirmed: false, asked, message } };
}

function errorResult(code: string, message: string, details?: unknown): CallToolResult {
  const error = details === undefined ? { code, message } : { code, message, details };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(error) }], structuredContent: error };
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
