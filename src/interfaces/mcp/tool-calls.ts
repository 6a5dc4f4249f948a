import { Logger } from '@nestjs/common';
import type { ExecuteToolCallUseCase } from '../../application/agent/execute-tool-call.use-case';
import type { AskInConsoleUseCase } from '../../application/chat/ask-in-console.use-case';
import { TOOL_META_KEYS, type ToolCallContext, type ToolResult } from '../../application/agent/ports/tool-gateway.port';
import type { DryRunResult } from '../../application/agent/ports/toolbox.port';
import type { Tracer } from '../../application/shared/ports/tracer.port';
import {
  CONFIRMATION_REQUIRED,
  type ConfirmationTargets,
  confirmationTargets,
  deletionQuestionEnding,
  QUESTION_NAMED_MAX,
  withoutChatReplyHint,
} from '../../domain/agent/confirmation';
import type { JsonSchema, ToolDefinition } from '../../domain/agent/tools';
import type { ToolWords } from '../../domain/agent/tool-words';
import type { HoldEnding } from '../../domain/shared/hold-ending';

/**
 * What both MCP eras say the same way about tools: their list, the question a destructive
 * call puts to the person, the console fallback for a client that cannot ask, and the shape
 * of a result. The 2025 server (tools-mcp-server.ts) asks by elicitation on its session; the
 * 2026 one (modern/modern-mcp-server.ts) by a multi-round-trip `input_required` result. The
 * calls themselves, their audit rows and the policy's decisions are ExecuteToolCallUseCase's.
 */

const logger = new Logger('Tools');

/** An MCP `CallToolResult`, as both SDKs take it. */
export interface ToolCallResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: true;
}

/**
 * The tools as `tools/list` lists them for `source`, in the toolbox's fixed order (the same
 * bytes every time while the policy stands). An MCP client is given each tool's `outputSchema`;
 * the chat's in-process client is not: its calls include dry runs, whose question is no tool
 * result, and it offers a model the names, descriptions and input schemas only.
 */
export function listedTools(executor: ExecuteToolCallUseCase, source: 'chat' | 'mcp') {
  return executor.definitionsFor(source).map((tool) => {
    const outputSchema = source === 'mcp' ? mcpOutputSchema(tool) : undefined;
    return {
      name: tool.name,
      ...(tool.title ? { title: tool.title } : {}),
      description: tool.description,
      inputSchema: tool.inputSchema,
      ...(outputSchema ? { outputSchema } : {}),
      annotations: { readOnlyHint: !tool.mutates, destructiveHint: tool.destructive, openWorldHint: false },
      ...(tool.changesExisting ? { _meta: { [TOOL_META_KEYS.changesExisting]: true } } : {}),
    };
  });
}

/** A tool error's structured content (errorResult): a 2025 client of the v1 SDK validates it against outputSchema too. */
const TOOL_ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'The tool did not run as asked (isError is true): code names why; details, when there, what it found',
  properties: { code: { type: 'string' }, message: { type: 'string' }, details: {} },
  required: ['code', 'message'],
  additionalProperties: false,
};

/** How a question put to the person ended without a yes: a no, closed unanswered, expired unanswered, or not asked at all. */
export type NotConfirmedEnding = Exclude<HoldEnding, 'decided-yes'>;
const NOT_CONFIRMED_ENDINGS: readonly NotConfirmedEnding[] = ['decided-no', 'dismissed', 'expired', 'failed'];

/** A destructive call the person did not confirm (notConfirmed). */
const NOT_CONFIRMED_SCHEMA: JsonSchema = {
  type: 'object',
  description:
    'The person was asked and did not say yes: they said no, closed the question without answering, or nobody answered ' +
    'before it expired (or they could not be asked). Nothing was deleted',
  properties: {
    deleted: { type: 'array', maxItems: 0 },
    confirmed: { type: 'boolean', enum: [false] },
    asked: { type: 'string', description: 'The question the person was asked' },
    ending: {
      type: 'string',
      enum: NOT_CONFIRMED_ENDINGS,
      description: 'decided-no: they said no; dismissed: closed without an answer; expired: unanswered in time; failed: not asked',
    },
    message: { type: 'string', description: 'What happened, in a sentence for the person' },
  },
  required: ['deleted', 'confirmed', 'asked', 'ending', 'message'],
  additionalProperties: false,
};

/**
 * Everything a call's `structuredContent` can be over MCP: the tool's own result, a deletion
 * the person did not confirm (a destructive tool), or a tool error.
 */
function mcpOutputSchema(tool: ToolDefinition): (JsonSchema & { type: 'object' }) | undefined {
  if (!tool.outputSchema) return undefined;
  return { type: 'object', oneOf: [tool.outputSchema, ...(tool.destructive ? [NOT_CONFIRMED_SCHEMA] : []), TOOL_ERROR_SCHEMA] };
}

/**
 * The form a person answers before a destructive call runs: the question is the server's own,
 * with what the call will delete read from its dry run (the model's words never reach it), in
 * the tools' own words (`words`: the box's label, each item).
 */
export function confirmationForm(tool: string, question: DryRunResult, words: ToolWords) {
  const asked = withoutChatReplyHint(question.prompt);
  const targets = confirmationTargets({ tool, arguments: question.arguments }, words);
  return {
    asked,
    message: elicitationMessage(asked, targets),
    requestedSchema: {
      type: 'object' as const,
      properties: {
        confirm: {
          type: 'boolean' as const,
          title: words.confirmLabel(tool, targets.count),
          description: asked,
          default: false,
        },
      },
      required: ['confirm'],
    },
  };
}

/** The question, then, when it names only a few, what "yes" deletes one per line (as the chat's card lists it). */
function elicitationMessage(asked: string, targets: ConfirmationTargets): string {
  if (targets.count <= QUESTION_NAMED_MAX) return asked;
  const more = targets.count - targets.items.length;
  return [asked, '', ...targets.items.map((item) => `- ${item}`), ...(more > 0 ? [`… and ${more} more`] : [])].join('\n');
}

/**
 * A question to the person that ended without a yes: nothing was deleted, said as an outcome (not
 * an error a model would retry), in the words every held call uses (holdEndingSentence). An
 * expiry or a closed question is never worded as a no. `waitedMs`: how long the question was open.
 */
export function notConfirmed(asked: string, ending: NotConfirmedEnding, waitedMs: number): ToolResult {
  return { ok: true, data: { deleted: [], confirmed: false, asked, ending, message: deletionQuestionEnding(ending, waitedMs) } };
}

/**
 * A call the person must see first, from a client that cannot ask them: it still learns what
 * is true first (a task that is not there is not found); only what would really go is put to
 * the person in the console, and the client learns where it waits.
 */
export async function askedInConsoleInstead(
  executor: ExecuteToolCallUseCase,
  askInConsole: AskInConsoleUseCase | undefined,
  tool: string,
  args: unknown,
  context: ToolCallContext,
): Promise<ToolResult> {
  const dryRun = await executor.execute({ tool, arguments: args, context: { ...context, mode: { kind: 'dry-run' } } });
  if (!dryRun.ok) return dryRun;
  const result = await executor.execute({ tool, arguments: args, context });
  if (result.ok || result.code !== CONFIRMATION_REQUIRED || !askInConsole) return result;
  const question = dryRun.data as DryRunResult;
  try {
    const asked = await askInConsole.ask(context.userId, { tool, arguments: question.arguments, prompt: question.prompt });
    return { ...result, message: asked.message, details: { conversationId: asked.conversationId, confirmationId: asked.confirmationId } };
  } catch (error) {
    logger.warn(
      { err: error, userId: context.userId },
      'the confirmation could not be stored for the console; the client is sent to the chat',
    );
    return result;
  }
}

/** A tool's outcome as an MCP result: data as structured content, a refusal as an error result with its code. */
export function toolCallResult(result: ToolResult): ToolCallResult {
  if (!result.ok) return errorResult(result.code, result.message, result.details);
  const data = result.data as Record<string, unknown>;
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
}

export function errorResult(code: string, message: string, details?: unknown): ToolCallResult {
  const error = details === undefined ? { code, message } : { code, message, details };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(error) }], structuredContent: error };
}

/** A bug, not an outcome: logged with its stack, never shown to the caller. */
export function unexpectedFailure(error: unknown, tool: string, context: ToolCallContext): ToolCallResult {
  logger.error({ err: error, tool, userId: context.userId, decisionId: context.decisionId }, 'tool failed unexpectedly');
  return errorResult('INTERNAL', 'The tool failed unexpectedly.');
}

/**
 * Each `tools/call` a client sends runs in a server span (`tools/call {tool}`, the MCP
 * semantic conventions). Not for the chat's in-process channel: its calls already have the
 * agent's `execute_tool` span.
 */
export function inToolCallSpan<R extends object>(
  tracer: Tracer | undefined,
  executor: ExecuteToolCallUseCase,
  call: { tool: string; arguments: unknown; requestId: string | number; sessionId?: string },
  answer: () => Promise<R>,
): Promise<R> {
  if (!tracer?.enabled) return answer();
  // The name is the client's word: only one of our tools' names goes into a span's name.
  const tool = executor.isTool(call.tool) ? call.tool : 'unknown_tool';
  const attributes = {
    'mcp.method.name': 'tools/call',
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': tool,
    'jsonrpc.request.id': String(call.requestId),
    'mcp.session.id': call.sessionId,
    'network.transport': 'tcp',
    ...(tracer.capturesContent ? { 'gen_ai.tool.call.arguments': JSON.stringify(call.arguments ?? {}) } : {}),
  };
  return tracer.inSpan(`tools/call ${tool}`, { kind: 'server', attributes }, async (span) => {
    const result = await answer();
    const outcome = result as { isError?: unknown; structuredContent?: unknown };
    if (outcome.isError === true) {
      // A refusal is a result, not a JSON-RPC error: the conventions' tool_error, and our code beside it.
      const code = (outcome.structuredContent as { code?: unknown } | undefined)?.code;
      span.fail('tool_error');
      span.set({ 'bridle.tool.error_code': typeof code === 'string' ? code : undefined });
    } else if (tracer.capturesContent) {
      span.set({ 'gen_ai.tool.call.result': JSON.stringify(outcome.structuredContent ?? {}) });
    }
    return result;
  });
}
