import { TREATMENTS } from '../../../domain/agent/failures';
import { parseToolCall, validateToolArguments } from '../../../domain/agent/tool-call-validation';
import type { AgentMessage, ToolCallRequest, ToolDefinition } from '../../../domain/agent/tools';
import type { ToolCallRecord } from '../../../domain/chat/conversation';
import type { SchemaValidator } from '../ports/schema-validator.port';
import type { DryRunResult } from '../ports/toolbox.port';
import { type AgentRunInput, recordedCall, type RunState } from './agent-run';
import type { ToolInvocation } from './tool-invocation';

/** What one of the model's calls came to: a result the model reads, or a question for the person. */
export type CallOutcome =
  | { readonly kind: 'result'; readonly record: ToolCallRecord; readonly message: AgentMessage }
  | { readonly kind: 'confirm'; readonly record: ToolCallRecord; readonly dryRun: DryRunResult };

/**
 * One call of the model's batch, always through the gateway, so that the tool server
 * validates, audits and counts it like any other: a call the agent cannot send as it is
 * (over the turn's tool calls, no such tool, arguments not JSON or too large) goes as a
 * refusal for the server to record. A call of a tool that can be put to the person (a
 * destructive one: it has a question) goes first as a dry run, and the server's answer says
 * whether the policy in force puts it to them (docs/policies.md): then it becomes their
 * question; else it runs.
 */
export class ModelToolCall {
  constructor(
    private readonly invocation: ToolInvocation,
    private readonly schemas: SchemaValidator,
  ) {}

  async handle(
    call: ToolCallRequest,
    tools: readonly ToolDefinition[],
    input: AgentRunInput,
    signal: AbortSignal,
    state: RunState,
  ): Promise<CallOutcome> {
    if (state.toolCalls >= input.limits.maxToolCalls) {
      return this.refuse(call, input, signal, state, { code: 'LIMIT_REACHED', message: TREATMENTS.LIMIT_REACHED.modelSees });
    }
    state.toolCalls++;
    const tool = tools.find((candidate) => candidate.name === call.name);
    const parsed = tool
      ? parseToolCall(call, input.limits.maxToolArgumentBytes)
      : validateToolArguments(tools, call.name, {}, this.schemas);
    if (!parsed.ok) {
      const { code, message, details } = parsed;
      return this.refuse(call, input, signal, state, { code, message, ...(details ? { details } : {}) });
    }
    const args = parsed.arguments;
    if (tool?.destructive) {
      const preview = await this.invocation.invoke(call, args, input, signal, state, { kind: 'dry-run' });
      if (!preview.result.ok) return { kind: 'result', record: preview.record, message: preview.message };
      const dryRun = preview.result.data as DryRunResult;
      if (dryRun.asksThePerson !== false) {
        // Nothing ran: the record says so, and shows what would happen on "yes".
        const record: ToolCallRecord = {
          ...preview.record,
          success: false,
          result: undefined,
          error: { code: 'CONFIRMATION_REQUIRED', message: dryRun.prompt, details: dryRun.preview },
        };
        return { kind: 'confirm', record, dryRun };
      }
    }
    const outcome = await this.invocation.invoke(call, args, input, signal, state);
    if (outcome.result.ok && tool?.changesExisting) state.changes++;
    if (outcome.result.ok && tool?.mutates) state.changesMade++;
    return { kind: 'result', record: outcome.record, message: outcome.message };
  }

  /**
   * A call the agent will not send as the model wrote it. It still goes to the tool server,
   * which records and counts the refusal; what is recorded is the call made storable and
   * bounded (parsed when it is JSON, so secrets are masked by key), never the raw text.
   */
  private async refuse(
    call: ToolCallRequest,
    input: AgentRunInput,
    signal: AbortSignal,
    state: RunState,
    error: { readonly code: string; readonly message: string; readonly details?: unknown },
  ): Promise<CallOutcome> {
    const recorded = await recordedCall(call, input.limits.maxToolArgumentBytes);
    const outcome = await this.invocation.invoke({ ...call, name: recorded.name }, recorded.arguments, input, signal, state, {
      kind: 'refused',
      refusal: { ...error, arguments: recorded.arguments },
    });
    return { kind: 'result', record: outcome.record, message: outcome.message };
  }
}
