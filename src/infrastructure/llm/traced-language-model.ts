import { type Completion, type CompletionRequest, LanguageModel } from '../../application/agent/ports/language-model.port';
import { type ActiveSpan, genAiProviderName, type SpanAttributes, type Tracer } from '../../application/shared/ports/tracer.port';
import { decimalText } from '../../domain/agent/money';
import type { ModelPrice } from '../../domain/agent/pricing';
import type { AgentMessage } from '../../domain/agent/tools';

/**
 * One `chat {model}` span per model call, whichever provider is behind it (the GenAI
 * semantic conventions' inference span): the request's model and settings, the tokens the
 * provider counted and why it stopped, and what the call cost at the price table
 * (`bridle.model.cost`, in the prices' currency, exact) when calls are priced. The prompt, the history and the answer only when the
 * operator opted in (Tracer.capturesContent).
 */
export class TracedLanguageModel extends LanguageModel {
  constructor(
    private readonly inner: LanguageModel,
    private readonly tracer: Tracer,
  ) {
    super();
  }

  get provider(): string {
    return this.inner.provider;
  }

  get model(): string {
    return this.inner.model;
  }

  override get price(): ModelPrice | null {
    return this.inner.price;
  }

  complete(request: CompletionRequest): Promise<Completion> {
    return this.traced(request, false, () => this.inner.complete(request));
  }

  override stream(request: CompletionRequest, onText: (text: string) => void): Promise<Completion> {
    return this.traced(request, true, () => this.inner.stream(request, onText));
  }

  private traced(request: CompletionRequest, stream: boolean, call: () => Promise<Completion>): Promise<Completion> {
    const { options } = request;
    const attributes: SpanAttributes = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': genAiProviderName(this.provider),
      'gen_ai.request.model': this.model,
      'gen_ai.request.temperature': options?.temperature,
      'gen_ai.request.max_tokens': options?.maxTokens,
      'gen_ai.output.type': options?.jsonMode ? 'json' : 'text',
      ...(stream ? { 'gen_ai.request.stream': true } : {}),
      ...(this.tracer.capturesContent ? requestContent(request) : {}),
    };
    return this.tracer.inSpan(`chat ${this.model}`, { kind: 'client', attributes }, async (span) => {
      const completion = await call();
      record(span, completion, this.tracer.capturesContent);
      return completion;
    });
  }
}

function record(span: ActiveSpan, completion: Completion, capturesContent: boolean): void {
  span.set({
    'gen_ai.usage.input_tokens': completion.usage.promptTokens,
    'gen_ai.usage.output_tokens': completion.usage.completionTokens,
    'gen_ai.response.finish_reasons': [completion.finishReason],
    ...(completion.model ? { 'gen_ai.response.model': completion.model } : {}),
    ...(completion.cost !== undefined && completion.cost !== null ? { 'bridle.model.cost': Number(decimalText(completion.cost)) } : {}),
    ...(capturesContent
      ? {
          'gen_ai.output.messages': JSON.stringify([
            { role: 'assistant', parts: parts({ role: 'assistant', content: completion.text, toolCalls: completion.toolCalls }) },
          ]),
        }
      : {}),
  });
}

/** The opt-in content attributes, as the conventions' JSON schemas shape them (serialised: spans take no structured values yet). */
function requestContent(request: CompletionRequest): SpanAttributes {
  return {
    'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: request.systemPrompt }]),
    'gen_ai.input.messages': JSON.stringify(request.messages.map((message) => ({ role: message.role, parts: parts(message) }))),
  };
}

function parts(message: AgentMessage): unknown[] {
  switch (message.role) {
    case 'user':
      return [{ type: 'text', content: message.content }];
    case 'assistant':
      return [
        ...(message.content ? [{ type: 'text', content: message.content }] : []),
        ...(message.toolCalls ?? []).map((call) => ({ type: 'tool_call', id: call.id, name: call.name, arguments: call.arguments })),
      ];
    case 'tool':
      return [{ type: 'tool_call_response', id: message.toolCallId, response: message.content }];
  }
}
