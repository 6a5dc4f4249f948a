import OpenAI, { type AzureOpenAI } from 'openai';
import type { CompletionUsage } from 'openai/resources/completions';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
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
import {
  answeredModel,
  providerToolCalls,
  streamedArgumentsText,
  type WireToolCall,
  wireEntries,
  wireField,
} from '../../../domain/agent/model-output';
import type { AgentMessage, ToolCallRequest } from '../../../domain/agent/tools';
import { type Classified, type RetryPolicy, withRetries, withStreamRetries } from '../retry';

/**
 * Chat Completions through the official SDK: OpenAI, Azure OpenAI (the same package), and
 * any OpenAI-compatible server by base URL (Gemini's compatibility endpoint, Ollama, vLLM,
 * llama.cpp). Construct the client with `maxRetries: 0`: timeouts and retries happen here,
 * bounded by the turn's deadline.
 */
export class OpenAiLanguageModel extends LanguageModel {
  readonly provider: string;
  readonly model: string;
  private readonly retry: RetryPolicy;

  constructor(
    private readonly client: OpenAI | AzureOpenAI,
    options: { provider: string; model: string; retry: RetryPolicy },
  ) {
    super();
    this.provider = options.provider;
    this.model = options.model;
    this.retry = options.retry;
  }

  async complete(request: CompletionRequest): Promise<Completion> {
    const body = this.body(request);
    const response = await withRetries(
      this.retry,
      request.signal,
      (signal) => this.client.chat.completions.create(body, { signal }),
      classifyOpenAiError,
    );
    const choice = response.choices[0];
    if (!choice) throw new LanguageModelUnavailableError('The provider answered with no choice');
    return completionOf({
      text: textOf(wireField(choice.message, 'content')) || null,
      toolCalls: providerToolCalls(wireEntries(wireField(choice.message, 'tool_calls')).map(openAiWireCall), request.messages.length),
      finishReason: choice.finish_reason,
      usage: response.usage,
      model: wireField(response, 'model'),
    });
  }

  override async stream(request: CompletionRequest, onText: (text: string) => void): Promise<Completion> {
    const body: ChatCompletionCreateParamsStreaming = { ...this.body(request), stream: true, stream_options: { include_usage: true } };
    const chunks = await withStreamRetries(
      this.retry,
      request.signal,
      async (signal, emit) => {
        const read: ChatCompletionChunk[] = [];
        for await (const chunk of await this.client.chat.completions.create(body, { signal })) {
          read.push(chunk);
          emit(textOf(wireField(chunk.choices[0]?.delta, 'content')));
        }
        // The SDK ends an aborted stream quietly, as if it were complete.
        signal.throwIfAborted();
        if (!read.some((chunk) => chunk.choices[0]?.finish_reason)) throw new Error('The stream ended before the answer did');
        return read;
      },
      classifyOpenAiError,
      onText,
    );
    return completionOf(assembled(chunks, request.messages.length));
  }

  private body(request: CompletionRequest): ChatCompletionCreateParamsNonStreaming {
    const options = request.options ?? {};
    const offerTools = request.tools.length > 0 && !options.jsonMode;
    const tools: ChatCompletionTool[] = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: { ...tool.inputSchema } },
    }));
    return {
      model: this.model,
      messages: [{ role: 'system', content: request.systemPrompt }, ...request.messages.map(toOpenAiMessage)],
      ...(offerTools ? { tools, tool_choice: options.toolChoice ?? 'auto' } : {}),
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
      ...(options.jsonMode ? { response_format: { type: 'json_object' } } : {}),
    };
  }
}

function toOpenAiMessage(message: AgentMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls?.length
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

interface Answer {
  readonly text: string | null;
  readonly toolCalls: readonly ToolCallRequest[];
  readonly finishReason: string | null | undefined;
  readonly usage: CompletionUsage | null | undefined;
  /** The provider's `model` field, as it came. */
  readonly model: unknown;
}

/** What the port returns for an answer; a filtered answer with nothing in it is a failure. */
function completionOf(answer: Answer): Completion {
  const finishReason = finishReasonOf(answer.finishReason);
  if (finishReason === 'content_filter' && !answer.text && answer.toolCalls.length === 0) {
    throw new LanguageModelContentFilterError('The provider filtered the answer');
  }
  return {
    text: answer.text,
    toolCalls: answer.toolCalls,
    usage: { promptTokens: answer.usage?.prompt_tokens ?? 0, completionTokens: answer.usage?.completion_tokens ?? 0 },
    finishReason,
    ...answeredModel(answer.model),
  };
}

/**
 * A call of an answer's `tool_calls`, its fields as they came (providerToolCalls reads them).
 * Bridle offers only functions, so `type` is not read: some OpenAI-compatible servers leave it
 * out. An entry that is no object, or has no `function` object, is a call without a name,
 * refused as an unknown tool that the model is told about.
 */
function openAiWireCall(call: unknown): WireToolCall {
  const fn = wireField(call, 'function');
  return { id: wireField(call, 'id'), name: wireField(fn, 'name'), arguments: wireField(fn, 'arguments') };
}

/** An answer's text: a string as it came; anything else a server put there is none. */
function textOf(raw: unknown): string {
  return typeof raw === 'string' ? raw : '';
}

/** Where a streamed delta's `index` is a position (a whole number from 0), that position. */
function deltaIndex(raw: unknown): number | null {
  return typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0 ? raw : null;
}

/**
 * The answer a stream's chunks make: the text deltas joined; the tool calls put together from
 * their deltas, in the order they began, each field as it came (providerToolCalls reads
 * them); the last finish reason, and the usage of the last chunk that has one (with
 * include_usage, a final chunk without choices).
 *
 * A delta belongs to the call of its `index` (a whole number from 0). Some OpenAI-compatible
 * servers (Gemini's) leave the index out: then a delta with a string id no call has yet starts
 * a call (or continues the call of that id), and any other continues the last one (or starts the first). A call's id is the first
 * string id its deltas carried, its name the last non-null one; its arguments are its pieces
 * (streamedArgumentsText: some servers send them whole, as an object).
 */
function assembled(chunks: readonly ChatCompletionChunk[], position: number): Answer {
  let text = '';
  let finishReason: string | null = null;
  let usage: CompletionUsage | undefined;
  let model: unknown;
  const calls = new Map<string, { id: unknown; name: unknown; pieces: unknown[] }>();
  let last: string | null = null;
  for (const chunk of chunks) {
    if (chunk.usage) usage = chunk.usage;
    model = wireField(chunk, 'model') ?? model;
    const choice = chunk.choices[0];
    if (!choice) continue;
    text += textOf(wireField(choice.delta, 'content'));
    finishReason = choice.finish_reason ?? finishReason;
    for (const delta of wireEntries(wireField(choice.delta, 'tool_calls'))) {
      const index = deltaIndex(wireField(delta, 'index'));
      const id = wireField(delta, 'id');
      const key: string = index !== null ? `index ${index}` : typeof id === 'string' ? `id ${id}` : (last ?? 'index 0');
      last = key;
      const call = calls.get(key) ?? { id: undefined, name: undefined, pieces: [] };
      if (typeof call.id !== 'string' && id !== undefined) call.id = id;
      const fn = wireField(delta, 'function');
      const name = wireField(fn, 'name');
      if (name !== undefined && name !== null) call.name = name;
      call.pieces.push(wireField(fn, 'arguments'));
      calls.set(key, call);
    }
  }
  const toolCalls = providerToolCalls(
    [...calls.values()].map(({ id, name, pieces }) => ({ id, name, arguments: streamedArgumentsText(pieces) })),
    position,
  );
  return { text: text || null, toolCalls, finishReason, usage, model };
}

function finishReasonOf(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content_filter';
    default:
      return 'stop';
  }
}

/** The SDK's error classes, as the agent core's family, keeping the provider's request id. */
export function classifyOpenAiError(error: unknown, how: { timedOut: boolean; turnEnded: boolean }): Classified {
  const requestId = error instanceof OpenAI.APIError ? (error.requestID ?? undefined) : undefined;
  const options = { cause: error, requestId };
  const status: number | undefined = error instanceof OpenAI.APIError ? (error.status as number | undefined) : undefined;
  if (how.turnEnded) return { error: new LanguageModelTimeoutError('The turn ended before the model answered', options), retryable: false };
  if (how.timedOut || error instanceof OpenAI.APIConnectionTimeoutError) {
    return { error: new LanguageModelTimeoutError('The model did not answer in time', options), retryable: false };
  }
  if (error instanceof OpenAI.RateLimitError) {
    return { error: new LanguageModelRateLimitError('The provider is rate limiting', options), retryable: true };
  }
  // No connection, or (not an APIError) one that broke or ended early while the answer was read.
  const broken = !(error instanceof OpenAI.APIError) || error instanceof OpenAI.APIConnectionError;
  if (broken || (status !== undefined && status >= 500)) {
    return { error: new LanguageModelUnavailableError(`The provider failed (${status ?? 'no connection'})`, options), retryable: true };
  }
  if (error instanceof OpenAI.BadRequestError) {
    const code = error.code;
    return code === 'content_filter'
      ? { error: new LanguageModelContentFilterError('The provider refused the request', options), retryable: false }
      : { error: new LanguageModelBadRequestError('The provider refused the request (400)', options), retryable: false };
  }
  // 401, 403, 404…: a misconfiguration the person cannot fix, and no retry will.
  return { error: new LanguageModelUnavailableError(`The provider refused the call (${status ?? 'unknown'})`, options), retryable: false };
}
