import { Logger } from '@nestjs/common';
import {
  CLIENT_CAPABILITIES_META_KEY,
  type CallToolResult,
  type ListToolsResult,
  type InputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { ExecuteToolCallUseCase } from '../../../application/agent/execute-tool-call.use-case';
import { deletionQuestionEnding } from '../../../domain/agent/confirmation';
import type { ToolCallContext } from '../../../application/agent/ports/tool-gateway.port';
import type { AskInConsoleUseCase } from '../../../application/chat/ask-in-console.use-case';
import type { Tracer } from '../../../application/shared/ports/tracer.port';
import type { GetTaskUseCase } from '../../../application/todo/get-task.use-case';
import type { ListTasksUseCase } from '../../../application/todo/list-tasks.use-case';
import { taskReadHandlers } from '../task-resources';
import { askedInConsoleInstead, inToolCallSpan, listedTools, toolCallResult, unexpectedFailure } from '../tool-calls';
import type { McpCaller, MrtrConfirmations, StateRefusal } from './mrtr-confirmations';

const logger = new Logger('Mcp');

/** What the 2026 server needs, the same for every request. */
export interface ModernMcpDeps {
  readonly executor: ExecuteToolCallUseCase;
  readonly confirmations: MrtrConfirmations;
  readonly askInConsole: AskInConsoleUseCase;
  readonly listTasks: ListTasksUseCase;
  readonly getTask: GetTaskUseCase;
  readonly tracer?: Tracer;
}

/**
 * `resources`: a `subscriptions/listen` stream may ask for `resources/updated` of
 * `bridle://tasks` and `bridle://tasks/{n}`, and for `resources/list_changed` (the list names
 * each task): both are sent on any change to the person's tasks (listen-streams.ts).
 */
export const MODERN_CAPABILITIES: ServerCapabilities = {
  tools: { listChanged: false },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: false },
};

/**
 * How long a client may keep a list: the tools' descriptions follow the policy in force, the
 * resources are one person's data, so every list is private, and kept a minute at most.
 */
const CACHE_HINTS = {
  'tools/list': { ttlMs: 60_000, cacheScope: 'private' as const },
  'prompts/list': { ttlMs: 60_000, cacheScope: 'private' as const },
  'resources/templates/list': { ttlMs: 60_000, cacheScope: 'private' as const },
  'resources/list': { ttlMs: 0, cacheScope: 'private' as const },
  'resources/read': { ttlMs: 0, cacheScope: 'private' as const },
  'server/discover': { ttlMs: 60_000, cacheScope: 'private' as const },
};

/** Why a state cannot be used; an expired one is said as an expiry instead (refuse). */
const REFUSALS: Record<Exclude<StateRefusal, 'expired'>, string> = {
  tampered: 'it is not one this server issued, or it was changed',
  'another-person': 'it was issued to another person',
  'another-credential': 'it was issued to another credential of yours',
  'another-call': 'it was issued for another call (another tool or other arguments)',
  'policy-changed': 'the policy changed since the question was asked',
  'already-answered': 'the question was already answered',
  unknown: 'the question is not known here',
};

/**
 * The MCP server for one 2026-07-28 request (the SDK's createMcpHandler builds one per
 * request): the same tools, resources and prompts as a 2025 session, for the person the
 * bearer token names. A call the policy puts to the person is an `input_required` result
 * (MrtrConfirmations); a client that cannot show a form gets the console, as a 2025 one does.
 */
export function createModernMcpServer(deps: ModernMcpDeps, caller: McpCaller): Server {
  const server = new Server(
    { name: 'bridle-tools', version: '0.1.0' },
    {
      capabilities: MODERN_CAPABILITIES,
      cacheHints: CACHE_HINTS,
      instructions:
        "Bridle holds this person's tasks. Use the tools to read and change them; the resources show the list; " +
        'deleting asks the person first.',
    },
  );
  const { executor } = deps;
  const { userId } = caller.context;

  server.setRequestHandler('tools/list', () => ({ tools: listedTools(executor, 'mcp') as ListToolsResult['tools'] }));
  server.setRequestHandler('tools/call', (request, ctx) => {
    const { name, arguments: args } = request.params;
    if (!executor.isTool(name))
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${JSON.stringify(name).slice(0, 80)}`);
    return inToolCallSpan(deps.tracer, executor, { tool: name, arguments: args, requestId: ctx.mcpReq.id }, () =>
      callTool(deps, caller, name, args, ctx),
    );
  });

  const reads = taskReadHandlers(userId, deps);
  server.setRequestHandler('resources/list', () => reads.listResources());
  server.setRequestHandler('resources/templates/list', () => reads.listResourceTemplates());
  server.setRequestHandler('resources/read', (request) => reads.readResource(request.params.uri));
  server.setRequestHandler('prompts/list', () => reads.listPrompts());
  server.setRequestHandler('prompts/get', (request) => reads.getPrompt(request.params.name, request.params.arguments));
  return server;
}

async function callTool(
  deps: ModernMcpDeps,
  caller: McpCaller,
  name: string,
  args: unknown,
  ctx: ServerContext,
): Promise<CallToolResult | InputRequiredResult> {
  const { executor, confirmations } = deps;
  const { context } = caller;
  const wireState = ctx.mcpReq.requestState<unknown>();
  try {
    if (wireState !== undefined) {
      const state = typeof wireState === 'string' ? wireState : JSON.stringify(wireState);
      const answer = await confirmations.answer(name, args, caller, state, ctx.mcpReq.inputResponses);
      if (answer.kind === 'refused')
        return refuse(executor, { tool: name, args, context, waitedMs: confirmations.ttlSeconds * 1000 }, answer.reason);
      return answer.kind === 'ask-again' ? answer.question : toolCallResult(answer.result);
    }
    const asks = await executor.asksThePerson(name, args, context);
    if (asks && canShowForms(ctx)) {
      const asked = await confirmations.ask(name, args, caller, asks.policyVersion);
      return 'resultType' in asked ? asked : toolCallResult(asked);
    }
    if (asks) return toolCallResult(await askedInConsoleInstead(executor, deps.askInConsole, name, args, context));
    return toolCallResult(await executor.execute({ tool: name, arguments: args, context }));
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    return unexpectedFailure(error, name, context);
  }
}

/**
 * A state that cannot be used, audited as any refused call is, then the client's error: nothing
 * ran. An expired one is said as what it is, the question expiring unanswered (nobody said no);
 * `waitedMs`: how long it was open.
 */
async function refuse(
  executor: ExecuteToolCallUseCase,
  call: { tool: string; args: unknown; context: ToolCallContext; waitedMs: number },
  reason: StateRefusal,
): Promise<never> {
  const { tool, args, context } = call;
  const message =
    reason === 'expired'
      ? `${deletionQuestionEnding('expired', call.waitedMs)} Call the tool again to be asked anew.`
      : `This confirmation cannot be used: ${REFUSALS[reason]}. Nothing ran; call the tool again to be asked anew.`;
  // Tampered or foreign states are what an attack looks like: worth a line beside the audit row (an expiry is not).
  if (reason !== 'expired') logger.warn({ userId: context.userId, tool, reason }, 'a 2026 MCP confirmation was refused');
  const details = reason === 'expired' ? { reason, waitedMs: call.waitedMs } : { reason };
  await executor.execute({
    tool,
    arguments: args,
    context: {
      ...context,
      mode: { kind: 'refused', refusal: { code: 'MCP.REQUEST_STATE_REFUSED', message, arguments: recordable(args), details } },
    },
  });
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, message, { reason: 'invalid_request_state', refused: reason });
}

function recordable(args: unknown) {
  return args !== null && typeof args === 'object' && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : JSON.stringify(args ?? null);
}

/** Form-mode elicitation, as the request's own `_meta` declares it (2026 has no session to remember it). */
function canShowForms(ctx: ServerContext): boolean {
  const capabilities = (ctx.mcpReq.envelope as Record<string, { elicitation?: unknown } | undefined> | undefined)?.[
    CLIENT_CAPABILITIES_META_KEY
  ];
  const elicitation = capabilities?.elicitation;
  // The SDK checks the envelope's shape; this reads it as untrusted all the same.
  if (typeof elicitation !== 'object' || elicitation === null || Array.isArray(elicitation)) return false;
  return Object.keys(elicitation).length === 0 || 'form' in elicitation;
}
