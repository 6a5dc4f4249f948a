import type { Amount } from '../../../domain/agent/money';
import type { ModelPrice } from '../../../domain/agent/pricing';
import type { AgentMessage, ToolCallRequest, ToolDefinition } from '../../../domain/agent/tools';

export interface CompletionOptions {
  readonly temperature?: number;
  readonly maxTokens?: number;
  /** Ask for exactly one JSON object as the text answer (no tools). */
  readonly jsonMode?: boolean;
  /** 'auto' (default): the model may call tools; 'none': it must answer in text. */
  readonly toolChoice?: 'auto' | 'none';
}

export interface CompletionRequest {
  readonly systemPrompt: string;
  /** Oldest first; the last one is what the model answers. */
  readonly messages: readonly AgentMessage[];
  readonly tools: readonly ToolDefinition[];
  readonly options?: CompletionOptions;
  /** Aborted when the turn's deadline passes; adapters cancel the request. */
  readonly signal: AbortSignal;
}

export interface TokenUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter';

export interface Completion {
  readonly text: string | null;
  readonly toolCalls: readonly ToolCallRequest[];
  readonly usage: TokenUsage;
  readonly finishReason: FinishReason;
  /** The model that answered, as the provider named it (a dated snapshot of the one asked, say); absent when it did not say. */
  readonly model?: string;
  /** The call's cost at the price table (MeteredLanguageModel); null when calls are not priced, absent from an adapter itself. */
  readonly cost?: Amount | null;
}

/**
 * A language model behind any provider. Implementations throw only the
 * LanguageModelError family (domain/agent/language-model-errors.ts).
 */
export abstract class LanguageModel {
  /** e.g. 'offline', 'openai', 'gemini'. */
  abstract readonly provider: string;
  abstract readonly model: string;

  /** This model's price at the price table, which a reservation counts the worst case at; null when calls are not priced. */
  get price(): ModelPrice | null {
    return null;
  }

  abstract complete(request: CompletionRequest): Promise<Completion>;

  /**
   * As complete(), telling `onText` each piece of the answer's text as the provider sends
   * it; tool calls are assembled whole before they are returned. A failure before the first
   * piece went out is retried like complete()'s; after it, it is thrown (a piece the person
   * has read cannot be taken back). `onText` never gets an empty piece.
   * This default, for models that cannot stream, sends the whole text as one piece.
   */
  async stream(request: CompletionRequest, onText: (text: string) => void): Promise<Completion> {
    const completion = await this.complete(request);
    if (completion.text) onText(completion.text);
    return completion;
  }
}
