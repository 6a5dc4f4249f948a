import { GoogleGenAI } from '@google/genai';
import type { CompletionRequest } from '../../src/application/agent/ports/language-model.port';
import { TODO_TOOLS } from '../../src/application/todo/tools/todo-tool-definitions';
import {
  LanguageModelContentFilterError,
  LanguageModelRateLimitError,
  LanguageModelTimeoutError,
  LanguageModelUnavailableError,
} from '../../src/domain/agent/language-model-errors';
import { GeminiLanguageModel } from '../../src/infrastructure/llm/gemini/gemini-language-model';
import { FakeProviderServer, geminiResponse } from '../support/fake-provider-server';

const KEY = 'AIza-test-not-a-real-key';

function request(overrides: Partial<CompletionRequest> = {}): CompletionRequest {
  return {
    systemPrompt: 'You manage tasks.',
    messages: [
      { role: 'user', content: 'add milk and list' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [
          { id: 'c1', name: 'add_task', arguments: '{"title":"Milk"}' },
          { id: 'c2', name: 'list_tasks', arguments: '{}' },
        ],
      },
      { role: 'tool', toolCallId: 'c1', name: 'add_task', content: '{"task":{"number":1}}', isError: false },
      { role: 'tool', toolCallId: 'c2', name: 'list_tasks', content: '{"count":1}', isError: false },
    ],
    tools: TODO_TOOLS,
    options: { temperature: 0.2, maxTokens: 256 },
    signal: new AbortController().signal,
    ...overrides,
  };
}

describe(GeminiLanguageModel.name, () => {
  let fake: FakeProviderServer;
  let sut: GeminiLanguageModel;

  beforeAll(async () => {
    fake = await FakeProviderServer.start();
    const client = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: fake.url, retryOptions: { attempts: 1 } } });
    sut = new GeminiLanguageModel(client, 'gemini-test', { timeoutMs: 1_000, maxRetries: 2, retryMaxWaitMs: 2_000 });
  });

  afterAll(async () => {
    await fake?.stop();
  });

  it('sends the system instruction, contents with grouped function responses and cleaned declarations', async () => {
    fake.respond(() => ({ json: geminiResponse([{ functionCall: { name: 'complete_task', args: { number: 1 } } }]) }));
    const completion = await sut.complete(request());

    expect(completion).toMatchObject({
      text: null,
      toolCalls: [{ name: 'complete_task', arguments: '{"number":1}' }],
      usage: { promptTokens: 30, completionTokens: 5 },
      finishReason: 'tool_calls',
    });
    const [sent] = fake.requests;
    expect(sent.url).toBe('/v1beta/models/gemini-test:generateContent');
    expect(sent.headers['x-goog-api-key']).toBe(KEY);
    expect(sent.body).toMatchObject({
      systemInstruction: { parts: [{ text: 'You manage tasks.' }] },
      generationConfig: { temperature: 0.2, maxOutputTokens: 256 },
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      contents: [
        { role: 'user', parts: [{ text: 'add milk and list' }] },
        {
          role: 'model',
          parts: [
            { functionCall: { id: 'c1', name: 'add_task', args: { title: 'Milk' } } },
            { functionCall: { id: 'c2', name: 'list_tasks', args: {} } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'c1', name: 'add_task', response: { task: { number: 1 } } } },
            { functionResponse: { id: 'c2', name: 'list_tasks', response: { count: 1 } } },
          ],
        },
      ],
    });
    const declarations = (sent.body.tools as { functionDeclarations: { name: string; parametersJsonSchema: object }[] }[])[0]
      .functionDeclarations;
    expect(declarations.map((d) => d.name)).toEqual(TODO_TOOLS.map((t) => t.name));
    expect(JSON.stringify(declarations)).not.toContain('additionalProperties');
  });

  it('asks for JSON without tools in JSON mode, and reads text answers', async () => {
    fake.respond(() => ({ json: geminiResponse([{ text: '{"action":' }, { text: '"wait"}' }]) }));
    await expect(sut.complete(request({ options: { jsonMode: true } }))).resolves.toMatchObject({ text: '{"action":"wait"}', toolCalls: [] });
    expect(fake.requests[0].body).toMatchObject({ generationConfig: { responseMimeType: 'application/json' } });
    expect(fake.requests[0].body.tools).toBeUndefined();
  });

  it('retries 429 and 503, then gives up with the right class', async () => {
    fake.respond((_, i) => (i === 0 ? { status: 503, json: { error: { code: 503, message: 'busy' } } } : { json: geminiResponse([{ text: 'ok' }]) }));
    await expect(sut.complete(request())).resolves.toMatchObject({ text: 'ok' });
    fake.respond(() => ({ status: 429, json: { error: { code: 429, message: 'quota', status: 'RESOURCE_EXHAUSTED' } } }));
    await expect(sut.complete(request())).rejects.toThrow(LanguageModelRateLimitError);
    expect(fake.requests).toHaveLength(3);
  });

  it('reports a hang as a timeout, a broken connection as unavailable, and a safety stop as filtered', async () => {
    fake.respond(() => ({ hang: true }));
    await expect(sut.complete(request())).rejects.toThrow(LanguageModelTimeoutError);
    fake.respond(() => ({ destroy: true }));
    await expect(sut.complete(request())).rejects.toThrow(LanguageModelUnavailableError);
    fake.respond(() => ({ json: geminiResponse([], 'SAFETY') }));
    await expect(sut.complete(request())).rejects.toThrow(LanguageModelContentFilterError);
  });
});
