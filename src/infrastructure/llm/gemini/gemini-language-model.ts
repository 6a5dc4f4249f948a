import {
  ApiError,
  type Content,
  type GenerateContentParameters,
  type GenerateContentResponse,
  type GoogleGenAI,
  type Part,
} from '@google/genai';
import {
  type Completion,
  type CompletionRequest,
  type FinishReason,
  LanguageModel,
} from '../../../application/agent/ports/language-model.port';
import {
  LanguageModelBadRequestError,
  LanguageModelContentFilterError,
  LanguageModelRateLimitError,
  LanguageModelTimeoutError,
  LanguageModelUnavailableError,
} from '../../../domain/agent/language-model-errors';
import { answeredModel, providerToolCalls, wireEntries, wireField } from '../../../domain/agent/model-output';
import type { AgentMessage } from '../../../domain/agent/tools';
import { type Classified, type RetryPolicy, withRetries, withStreamRetries } from '../retry';
import { toGeminiSchema } from './gemini-schema';

const FILTERED = new Set(['SAFETY', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'RECITATION', 'IMAGE_SAFETY']);

/**
 * Gemini through @google/genai: system instruction, function declarations, function calls
 * as tool calls and function responses as tool results, JSON mode. Construct the client
 * with `retryOptions: { attempts: 1 }`: timeouts and retries happen here.
 */
export class GeminiLanguageModel extends LanguageModel {
  readonly provider = 'gemini';

  constructor(
    private readonly client: GoogleGenAI,
    readonly model: string,
    private readonly retry: RetryPolicy,
  ) {
    super();
  }

  async complete(request: CompletionRequest): Promise<Completion> {
    const response = await withRetries(
      this.retry,
      request.signal,
      (signal) => this.client.models.generateContent(this.parameters(request, signal)),
      classifyGeminiError,
    );
    return completionOf([response], request);
  }

  override async stream(request: CompletionRequest, onText: (text: string) => void): Promise<Completion> {
    const chunks = await withStreamRetries(
      this.retry,
      request.signal,
      async (signal, emit) => {
        const read: GenerateContentResponse[] = [];
        for await (const chunk of await this.client.models.generateContentStream(this.parameters(request, signal))) {
          read.push(chunk);
          emit(textOf(partsOf(chunk)) ?? '');
        }
        if (!read.some((chunk) => chunk.promptFeedback?.blockReason || chunk.candidates?.[0]?.finishReason)) {
          throw new Error('The stream ended before the answer did');
        }
        return read;
      },
      classifyGeminiError,
      onText,
    );
    return completionOf(chunks, request);
  }

  private parameters(request: CompletionRequest, signal: AbortSignal): GenerateContentParameters {
    const options = request.options ?? {};
    const offerTools = request.tools.length > 0 && !options.jsonMode;
    return {
      model: this.model,
      contents: toContents(request.messages),
      config: {
        abortSignal: signal,
        systemInstruction: request.systemPrompt,
        ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
        ...(options.maxTokens === undefined ? {} : { maxOutputTokens: options.maxTokens }),
        ...(options.jsonMode ? { responseMimeType: 'application/json' } : {}),
        ...(offerTools
          ? {
              tools: [
                {
                  functionDeclarations: request.tools.map((tool) => ({
                    name: tool.name,
                    description: tool.description,
                    parametersJsonSchema: toGeminiSchema(tool.inputSchema),
                  })),
                },
              ],
              toolConfig: { functionCallingConfig: { mode: options.toolChoice === 'none' ? 'NONE' : 'AUTO' } },
            }
          : {}),
      } as GenerateContentParameters['config'],
    };
  }
}

/**
 * The answer that one response, or the chunks of a stream, make: their parts in order, the
 * last finish reason and the last usage (each chunk's usage is a running total). A blocked
 * prompt, or a filtered answer with nothing in it, is a failure.
 */
function completionOf(responses: readonly GenerateContentResponse[], request: CompletionRequest): Completion {
  if (responses.some((response) => response.promptFeedback?.blockReason)) {
    throw new LanguageModelContentFilterError('Gemini blocked the prompt');
  }
  const parts = responses.flatMap(partsOf);
  const calls = providerToolCalls(
    parts.flatMap((part) => {
      const call = wireField(part, 'functionCall');
      if (call === undefined || call === null) return [];
      return [{ id: wireField(call, 'id'), name: wireField(call, 'name'), arguments: wireField(call, 'args') }];
    }),
    request.messages.length,
  );
  const text = textOf(parts);
  const finished = String(responses.findLast((response) => response.candidates?.[0]?.finishReason)?.candidates?.[0]?.finishReason ?? '');
  const finishReason: FinishReason = FILTERED.has(finished)
    ? 'content_filter'
    : calls.length > 0
      ? 'tool_calls'
      : finished === 'MAX_TOKENS'
        ? 'length'
        : 'stop';
  if (finishReason === 'content_filter' && text === null && calls.length === 0) {
    throw new LanguageModelContentFilterError('Gemini filtered the answer');
  }
  const usage = responses.findLast((response) => response.usageMetadata)?.usageMetadata;
  return {
    text,
    toolCalls: calls,
    usage: { promptTokens: usage?.promptTokenCount ?? 0, completionTokens: usage?.candidatesTokenCount ?? 0 },
    finishReason,
    ...answeredModel(responses.findLast((response) => wireField(response, 'modelVersion'))?.modelVersion),
  };
}

/**
 * The parts of a response's first candidate, whatever the server put there: a part is read
 * field by field (a part with a `functionCall` is a call, whatever that holds: see
 * providerToolCalls), and a list that is none is one part.
 */
function partsOf(response: GenerateContentResponse): unknown[] {
  return [...wireEntries(wireField(wireField(response.candidates?.[0], 'content'), 'parts'))];
}

/** The answer's text in these parts, without the model's thoughts. */
function textOf(parts: readonly unknown[]): string | null {
  return (
    parts
      .flatMap((part) => {
        const text = wireField(part, 'text');
        return typeof text === 'string' && !wireField(part, 'thought') ? [text] : [];
      })
      .join('') || null
  );
}

/** Gemini wants the function responses of one model turn together, in one user content. */
function toContents(messages: readonly AgentMessage[]): Content[] {
  const contents: Content[] = [];
  for (const message of messages) {
    if (message.role === 'tool') {
      const part: Part = { functionResponse: { id: message.toolCallId, name: message.name, response: asObject(message.content) } };
      const last = contents[contents.length - 1];
      if (last?.role === 'user' && last.parts?.every((p) => p.functionResponse)) last.parts.push(part);
      else contents.push({ role: 'user', parts: [part] });
    } else if (message.role === 'user') {
      contents.push({ role: 'user', parts: [{ text: message.content }] });
    } else {
      const parts: Part[] = message.content ? [{ text: message.content }] : [];
      for (const call of message.toolCalls ?? []) {
        parts.push({ functionCall: { id: call.id, name: call.name, args: asObject(call.arguments) } });
      }
      contents.push({ role: 'model', parts });
    }
  }
  return contents;
}

/** Function arguments and responses must be objects; anything else is wrapped. */
function asObject(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value };
  } catch {
    return { raw: json };
  }
}

export function classifyGeminiError(error: unknown, how: { timedOut: boolean; turnEnded: boolean }): Classified {
  const options = { cause: error };
  if (how.turnEnded) return { error: new LanguageModelTimeoutError('The turn ended before Gemini answered', options), retryable: false };
  if (how.timedOut) return { error: new LanguageModelTimeoutError('Gemini did not answer in time', options), retryable: false };
  if (!(error instanceof ApiError)) {
    return { error: new LanguageModelUnavailableError('The connection to Gemini failed', options), retryable: true };
  }
  if (error.status === 429) return { error: new LanguageModelRateLimitError('Gemini is rate limiting', options), retryable: true };
  if (error.status >= 500) return { error: new LanguageModelUnavailableError(`Gemini failed (${error.status})`, options), retryable: true };
  if (error.status === 400)
    return { error: new LanguageModelBadRequestError('Gemini refused the request (400)', options), retryable: false };
  return { error: new LanguageModelUnavailableError(`Gemini refused the call (${error.status})`, options), retryable: false };
}
