import { BULK_CHANGE } from '../../domain/agent/confirmation';
import { NO_TOOLS } from '../../domain/agent/decision';
import type { ToolIntent } from '../../domain/agent/tools';
import type { JudgedCall, OutcomeCategory } from '../../domain/agent/turn-outcome';
import type { ToolCallRecord } from '../../domain/chat/conversation';
import type { AgentRunResult, TurnObserver } from '../agent/agent-loop';
import { TodoTools } from '../todo/tools/todo-tools';

/** A turn's result; one answered by the server alone says how it ended for the person. */
export type TurnResult = AgentRunResult & { readonly outcome?: OutcomeCategory };

/** What a tool is called for: its definition's intent; a bulk change is BULK; a name that is no tool's, none. */
export function toolIntent(tool: string | null | undefined, tools: TodoTools = TodoTools.builtIn): ToolIntent | null {
  if (tool === BULK_CHANGE) return 'BULK';
  return tool ? (tools.find(tool)?.definition.intent ?? null) : null;
}

export function judged(calls: readonly ToolCallRecord[], tools: TodoTools = TodoTools.builtIn): JudgedCall[] {
  return calls.map((call) => ({
    tool: call.tool,
    intent: toolIntent(call.tool, tools),
    success: call.success,
    errorCode: call.error?.code ?? null,
  }));
}

/** A turn answered without the model or a tool. */
export function answer(text: string, outcome: OutcomeCategory, observer: TurnObserver | undefined): TurnResult {
  observer?.text?.(text);
  return {
    outcome,
    text,
    modelWords: '',
    serverSentences: [text],
    status: 'completed',
    finishReason: 'stop',
    warning: null,
    decisionType: 'RESPOND_ONLY',
    clarificationQuestion: null,
    facts: NO_TOOLS,
    iterations: 0,
    toolCalls: [],
    usage: { promptTokens: 0, completionTokens: 0 },
    cost: 0n,
    failure: null,
    confirmation: null,
  };
}
