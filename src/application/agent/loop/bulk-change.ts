import { BULK_CHANGE, BULK_CHANGES_MAX, bulkChangeArguments, bulkChangePrompt, type PlannedCall } from '../../../domain/agent/confirmation';
import { validateToolCall } from '../../../domain/agent/tool-call-validation';
import type { ToolCallRequest, ToolDefinition } from '../../../domain/agent/tools';
import type { ToolCallRecord } from '../../../domain/chat/conversation';
import type { SchemaValidator } from '../ports/schema-validator.port';
import { type AgentRunInput, recordedCall, type RunState, type TurnConfirmation } from './agent-run';

/**
 * A batch that would take the turn past BULK_CHANGES_MAX changes to existing things becomes
 * a question: its valid changing calls (within the turn's tool-call budget) are stored to
 * run on "yes", and recorded here as waiting for it. @returns null when the batch may run.
 */
export async function bulkChange(
  calls: readonly ToolCallRequest[],
  tools: readonly ToolDefinition[],
  input: AgentRunInput,
  state: RunState,
  schemas: SchemaValidator,
): Promise<TurnConfirmation | null> {
  const changing = calls.filter((call) => tools.some((tool) => tool.name === call.name && tool.changesExisting));
  if (state.changes + changing.length <= BULK_CHANGES_MAX) return null;
  const planned: PlannedCall[] = [];
  for (const call of changing.slice(0, Math.max(0, input.limits.maxToolCalls - state.toolCalls))) {
    const validation = validateToolCall(call, tools, input.limits.maxToolArgumentBytes, schemas);
    if (validation.ok) planned.push({ tool: validation.tool.name, arguments: validation.arguments });
  }
  if (state.changes + planned.length <= BULK_CHANGES_MAX) return null;
  const prompt = bulkChangePrompt(planned, input.words);
  for (const call of changing) {
    const recorded = await recordedCall(call, input.limits.maxToolArgumentBytes);
    const record: ToolCallRecord = {
      id: call.id,
      tool: recorded.name,
      arguments: recorded.arguments,
      success: false,
      error: { code: 'CONFIRMATION_REQUIRED', message: prompt },
      durationMs: 0,
    };
    input.observer?.toolCall?.({ tool: recorded.name, arguments: recorded.arguments });
    state.records.push(record);
    input.observer?.toolResult?.(record);
  }
  return { tool: BULK_CHANGE, arguments: bulkChangeArguments(planned), prompt };
}
