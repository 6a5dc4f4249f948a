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
import { FakeProviderServer, gate, geminiChunk, geminiResponse, geminiStream, within } from '../support/fake-provider-server';

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
    await expect(sut.complete(request({ options: { jsonMode: true } }))).resolves.toMatchObject({
      text: '{"action":"wait"}',
      toolCalls: [],
    });
    expect(fake.requests[0].body).toMatchObject({ generationConfig: { responseMimeType: 'application/json' } });
    expect(fake.requests[0].body.tools).toBeUndefined();
  });

  it('retries 429 and 503, then gives up with the right class', async () => {
    fake.respond((_, i) =>
      i === 0 ? { status: 503, json: { error: { code: 503, message: 'busy' } } } : { json: geminiResponse([{ text: 'ok' }]) },
    );
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

  describe('stream', () => {
    const hello = [
      geminiChunk([{ text: 'Hello' }]),
      geminiChunk([{ text: 'Let me think.', thought: true }, { text: ', world' }]),
      geminiResponse([{ text: '!' }]),
    ];

    it('asks for a stream over SSE, tells each piece of text before the last chunk is written, and returns the whole answer', async () => {
      const last = gate();
      fake.respond(() => geminiStream(hello, { until: last.promise }));
      const pieces: string[] = [];
      let writtenAtFirstPiece = -1;
      const streaming = sut.stream(request(), (text) => {
        if (pieces.length === 0) writtenAtFirstPiece = fake.requests[0].written.length;
        pieces.push(text);
        last.open();
      });

      const completion = await within(5_000, 'stream() did not settle: no piece came before the last chunk (buffered?)', streaming);
      expect(writtenAtFirstPiece).toBeGreaterThan(0);
      expect(writtenAtFirstPiece).toBeLessThan(hello.length);
      expect(pieces).toEqual(['Hello', ', world', '!']);
      expect(completion).toEqual({
        text: 'Hello, world!',
        toolCalls: [],
        usage: { promptTokens: 30, completionTokens: 5 },
        finishReason: 'stop',
        model: 'gemini-test',
      });
      const [sent] = fake.requests;
      expect(sent.url).toBe('/v1beta/models/gemini-test:streamGenerateContent?alt=sse');
      expect(sent.headers['x-goog-api-key']).toBe(KEY);
      expect(sent.body).toMatchObject({
        systemInstruction: { parts: [{ text: 'You manage tasks.' }] },
        generationConfig: { temperature: 0.2, maxOutputTokens: 256 },
        toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      });
    });

    it('returns function calls as tool calls, and tells no text for them', async () => {
      fake.respond(() =>
        geminiStream([
          geminiChunk([{ functionCall: { name: 'add_task', args: { title: 'Milk' } } }]),
          geminiResponse([{ functionCall: { id: 'fc_2', name: 'list_tasks', args: { status: 'pending' } } }]),
        ]),
      );
      const onText = jest.fn();
      await expect(sut.stream(request(), onText)).resolves.toEqual({
        text: null,
        toolCalls: [
          { id: 'bridle-call-4-0', name: 'add_task', arguments: '{"title":"Milk"}' },
          { id: 'fc_2', name: 'list_tasks', arguments: '{"status":"pending"}' },
        ],
        usage: { promptTokens: 30, completionTokens: 5 },
        finishReason: 'tool_calls',
        model: 'gemini-test',
      });
      expect(onText).not.toHaveBeenCalled();
    });

    it('retries a 429 and a 500 that came before the first piece', async () => {
      for (const failure of [
        { status: 429, json: { error: { code: 429, message: 'quota', status: 'RESOURCE_EXHAUSTED' } } },
        { status: 500, json: { error: { code: 500, message: 'boom', status: 'INTERNAL' } } },
      ]) {
        fake.respond((_, i) => (i === 0 ? failure : geminiStream(hello)));
        const pieces: string[] = [];
        await expect(sut.stream(request(), (text) => pieces.push(text))).resolves.toMatchObject({ text: 'Hello, world!' });
        expect(fake.requests).toHaveLength(2);
        expect(pieces).toEqual(['Hello', ', world', '!']);
      }
    });

    it('reports a connection broken after the first piece as unavailable, without a retry', async () => {
      fake.respond(() => geminiStream(hello, { failAfter: 1 }));
      const pieces: string[] = [];
      const failure = await sut.stream(request(), (text) => pieces.push(text)).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(LanguageModelUnavailableError);
      expect(fake.requests).toHaveLength(1);
      expect(pieces).toEqual(['Hello']);
    });

    it('reports a stream that ends before its finish reason as unavailable, and a blocked prompt or an empty safety stop as filtered', async () => {
      fake.respond(() => geminiStream([geminiChunk([{ text: 'Hel' }])]));
      await expect(sut.stream(request(), () => {})).rejects.toThrow(LanguageModelUnavailableError);
      expect(fake.requests).toHaveLength(1);
      fake.respond(() => geminiStream([{ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 30 } }]));
      await expect(sut.stream(request(), () => {})).rejects.toThrow(LanguageModelContentFilterError);
      fake.respond(() => geminiStream([geminiResponse([], 'SAFETY')]));
      await expect(sut.stream(request(), () => {})).rejects.toThrow(LanguageModelContentFilterError);
    });

    it("cancels a stream that hangs mid-way when the turn's deadline passes", async () => {
      fake.respond(() => geminiStream(hello, { until: new Promise(() => {}) }));
      const client = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: fake.url, retryOptions: { attempts: 1 } } });
      const patient = new GeminiLanguageModel(client, 'gemini-test', { timeoutMs: 60_000, maxRetries: 2, retryMaxWaitMs: 2_000 });
      const controller = new AbortController();
      const streaming = patient.stream(request({ signal: controller.signal }), () => controller.abort());
      // The stream never ends and the attempt's timeout is a minute away: only the abort can end it.
      await expect(within(5_000, 'stream() did not stop on abort', streaming)).rejects.toThrow(LanguageModelTimeoutError);
      await expect(streaming).rejects.toThrow('The turn ended before Gemini answered');
      expect(fake.requests).toHaveLength(1);
    });
  });
});
