import { NO_VOCABULARY, type ToolVocabulary } from '../../../domain/agent/clarification';
import type { DecisionType, TurnFacts, TurnFinishReason, TurnStatus } from '../../../domain/agent/decision';
import type { FailureClass } from '../../../domain/agent/failures';
import type { Amount } from '../../../domain/agent/money';
import type { AgentLimits, ModelSampling } from '../../../domain/agent/limits';
import { recordedArguments, recordedToolName } from '../../../domain/agent/model-output';
import { Reply } from '../../../domain/agent/reply';
import type { ToolArguments } from '../../../domain/agent/tool-call-validation';
import type { AgentMessage, ToolCallRequest } from '../../../domain/agent/tools';
import type { ToolWords } from '../../../domain/agent/tool-words';
import type { ToolCallRecord } from '../../../domain/chat/conversation';
import type { TokenUsage } from '../ports/language-model.port';
import type { TokenBudget } from '../ports/token-budget.port';
import type { ToolCaller } from '../ports/tool-gateway.port';

/** Told about a turn's tool calls as they happen (e.g. to stream them to a client). */
export interface TurnObserver {
  toolCall?(call: { readonly tool: string; readonly arguments: ToolArguments | string }): void;
  toolResult?(record: ToolCallRecord): void;
  /**
   * A piece of the reply as it is made (the model's tokens as the provider streams them, or a
   * sentence of the server's own: `from`); joined, the pieces are the reply.
   */
  text?(piece: string, from?: 'model' | 'server'): void;
  /**
   * The reply is `text` instead of the pieces told so far: the model's words failed the check
   * made before a reply is stored (reply-check.ts). Told at most once, after every piece.
   */
  replace?(text: string): void;
}

export interface AgentRunInput {
  readonly systemPrompt: string;
  /** The conversation window, ending with the message to answer. */
  readonly messages: readonly AgentMessage[];
  readonly context: ToolCaller & { readonly decisionId: string };
  readonly limits: AgentLimits;
  readonly sampling: ModelSampling;
  /** The person's budgets (the day's, the month's): each model call reserves from them first. */
  readonly budget?: TokenBudget;
  readonly observer?: TurnObserver;
  /** Named by the sentence after an unexpected failure (SUPPORT_CONTACT). */
  readonly supportContact?: string | null;
  /** The product's words for its tools' calls (Toolbox.words): a bulk change's question, the errors that ask back. */
  readonly words: ToolWords;
}

/** A destructive call the model asked for, or a bulk change: stored, and put to the person as a question. */
export interface TurnConfirmation {
  readonly tool: string;
  readonly arguments: ToolArguments;
  readonly prompt: string;
}

export interface AgentRunResult {
  readonly text: string;
  /** Of `text`: the model's words, which the chat checks before anyone reads them (reply-check.ts). */
  readonly modelWords: string;
  /** Of `text`: the server's own sentences (a question, a failure), in order. */
  readonly serverSentences: readonly string[];
  readonly status: TurnStatus;
  readonly finishReason: TurnFinishReason;
  /** Set when the answer may be incomplete: a limit was reached, or the answer was cut. */
  readonly warning: string | null;
  readonly decisionType: DecisionType;
  /** For ASK_CLARIFICATION: the question put to the person (decisionOf); null otherwise. */
  readonly clarificationQuestion: string | null;
  /** What the decision was made of besides the reply: a reply settled later is judged again with them. */
  readonly facts: TurnFacts;
  readonly iterations: number;
  readonly toolCalls: readonly ToolCallRecord[];
  readonly usage: TokenUsage;
  /** What the turn's model calls cost at the price table (0 when calls are not priced). */
  readonly cost: Amount;
  readonly failure: { readonly class: FailureClass; readonly providerRequestId: string | null } | null;
  /** A destructive call the model asked for: stored, and put to the person as a question. */
  readonly confirmation: TurnConfirmation | null;
}

/** Mutable bookkeeping of one run; never outlives it. */
export interface RunState {
  readonly reply: Reply;
  readonly records: ToolCallRecord[];
  usage: TokenUsage;
  cost: Amount;
  toolCalls: number;
  /** Calls run this turn that change something the person has (ToolDefinition.changesExisting). */
  changes: number;
  /** Calls run this turn of tools that change data (ToolDefinition.mutates) that succeeded. */
  changesMade: number;
  lastToolErrorCode: string | null;
  /** What the tools offered this turn take and do (none when no tools were offered). */
  vocabulary: ToolVocabulary;
}

export function newRunState(input: AgentRunInput, toolCalls: number): RunState {
  return {
    reply: new Reply(input.limits.maxReplyChars, input.observer?.text?.bind(input.observer)),
    records: [],
    usage: { promptTokens: 0, completionTokens: 0 },
    cost: 0n,
    toolCalls,
    changes: 0,
    changesMade: 0,
    lastToolErrorCode: null,
    vocabulary: NO_VOCABULARY,
  };
}

/** A model's call as it may be shown and recorded: see recordedToolName and recordedArguments. */
export async function recordedCall(
  call: ToolCallRequest,
  maxArgumentBytes: number,
): Promise<{ name: string; arguments: ToolArguments | string }> {
  return { name: recordedToolName(call.name), arguments: await recordedArguments(call.arguments, maxArgumentBytes) };
}
