import { TREATMENTS } from '../../../domain/agent/failures';
import type { ToolArguments } from '../../../domain/agent/tool-call-validation';
import type { AgentMessage, ToolCallRequest } from '../../../domain/agent/tools';
import type { ToolCallRecord } from '../../../domain/chat/conversation';
import type { Clock } from '../../shared/ports/clock.port';
import type { Tracer } from '../../shared/ports/tracer.port';
import type { ToolCallMode, ToolGateway, ToolResult } from '../ports/tool-gateway.port';
import type { DryRunResult } from '../ports/toolbox.port';
import type { AgentRunInput, RunState } from './agent-run';

/** What a tool's name looks like (ours are snake_case words): anything else is not one. */
const TOOL_NAME_SHAPE = /^[a-z][a-z0-9_]{0,63}$/;

/** A call as the gateway answered it, as it is recorded, and as the model reads it. */
export interface Invoked {
  readonly result: ToolResult;
  readonly record: ToolCallRecord;
  readonly message: AgentMessage;
}

/** Sends one call through the gateway in the given mode, bounded by the tool timeout and the turn's deadline, in its own span. */
export class ToolInvocation {
  constructor(
    private readonly gateway: ToolGateway,
    private readonly clock: Clock,
    private readonly tracer: Tracer,
  ) {}

  /**
   * One `execute_tool {tool}` span (GenAI semantic conventions) per call the gateway gets,
   * refusals included: the tool, the model's call id, the decision id and the outcome's code;
   * the arguments and the result only when the operator opted in to message content.
   */
  invoke(
    call: Pick<ToolCallRequest, 'id' | 'name'>,
    args: ToolArguments | string,
    input: AgentRunInput,
    turnSignal: AbortSignal,
    state: RunState,
    mode: ToolCallMode = { kind: 'run' },
  ): Promise<Invoked> {
    // The name and id are the model's words: a name that is no tool's shape is not put in a span name.
    const toolName = TOOL_NAME_SHAPE.test(call.name) ? call.name : 'invalid_tool_name';
    const attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': toolName,
      'gen_ai.tool.call.id': call.id.slice(0, 128),
      'gen_ai.tool.type': 'function',
      'gen_ai.conversation.id': input.context.conversationId,
      'bridle.decision.id': input.context.decisionId,
      ...(this.tracer.capturesContent ? { 'gen_ai.tool.call.arguments': typeof args === 'string' ? args : JSON.stringify(args) } : {}),
    };
    return this.tracer.inSpan(`execute_tool ${toolName}`, { attributes }, async (span) => {
      const outcome = await this.throughGateway(call, args, input, turnSignal, state, mode);
      if (!outcome.result.ok) span.fail(outcome.result.code);
      else if (this.tracer.capturesContent) span.set({ 'gen_ai.tool.call.result': JSON.stringify(outcome.result.data) });
      return outcome;
    });
  }

  private async throughGateway(
    call: Pick<ToolCallRequest, 'id' | 'name'>,
    args: ToolArguments | string,
    input: AgentRunInput,
    turnSignal: AbortSignal,
    state: RunState,
    mode: ToolCallMode,
  ): Promise<Invoked> {
    const started = this.clock.now().getTime();
    // Not AbortSignal.any(): Node keeps a composite signal with listeners alive until it
    // fires, and the MCP client never removes its listener, so every call leaked.
    const perCall = new AbortController();
    const abort = () => perCall.abort();
    const timer = setTimeout(abort, input.limits.toolTimeoutMs);
    turnSignal.addEventListener('abort', abort, { once: true });
    let result: ToolResult;
    try {
      result = await this.gateway.invoke(call.name, typeof args === 'string' ? {} : args, { ...input.context, mode }, perCall.signal);
    } catch {
      result = perCall.signal.aborted
        ? { ok: false, code: 'TIMEOUT', message: TREATMENTS.TIMEOUT.modelSees }
        : { ok: false, code: 'UNAVAILABLE', message: TREATMENTS.UNKNOWN.modelSees };
    } finally {
      clearTimeout(timer);
      turnSignal.removeEventListener('abort', abort);
    }
    const durationMs = this.clock.now().getTime() - started;
    state.lastToolErrorCode = result.ok ? null : result.code;
    const shown = result.ok
      ? mode.kind === 'dry-run'
        ? (result.data as DryRunResult).preview
        : result.data
      : { code: result.code, message: result.message, ...(result.details === undefined ? {} : { details: result.details }) };
    const record: ToolCallRecord = result.ok
      ? { id: call.id, tool: call.name, arguments: args, success: true, result: shown, durationMs }
      : { id: call.id, tool: call.name, arguments: args, success: false, error: shown as ToolCallRecord['error'], durationMs };
    const message: AgentMessage = {
      role: 'tool',
      toolCallId: call.id,
      name: call.name,
      content: JSON.stringify(shown),
      isError: !result.ok,
    };
    return { result, record, message };
  }
}
