import OpenAI, { AzureOpenAI } from 'openai';
import { completeJson } from '../../src/application/agent/complete-json';
import type { CompletionRequest } from '../../src/application/agent/ports/language-model.port';
import { TODO_TOOLS } from '../../src/application/todo/tools/todo-tool-definitions';
import {
  LanguageModelBadRequestError,
  LanguageModelContentFilterError,
  LanguageModelInvalidJsonError,
  LanguageModelRateLimitError,
  LanguageModelTimeoutError,
  LanguageModelUnavailableError,
} from '../../src/domain/agent/language-model-errors';
import { OpenAiLanguageModel } from '../../src/infrastructure/llm/openai/openai-language-model';
import {
  chatChunk,
  chatCompletion,
  FakeProviderServer,
  finishChunk,
  gate,
  openAiStream,
  textChunk,
  toolCall,
  toolCallChunk,
  usageChunk,
  within,
} from '../support/fake-provider-server';

const KEY = 'sk-test-not-a-real-key';
const retry = { timeoutMs: 1_000, maxRetries: 2, retryMaxWaitMs: 2_000 };

/** Records the delay of every timer the code under test schedules, and tells `onWait`; the timers run as usual. */
function recordWaits(onWait: (ms: number) => void = () => {}) {
  const setTimer = globalThis.setTimeout;
  return jest.spyOn(globalThis, 'setTimeout').mockImplementation((handler: () => void, ms?: number) => {
    onWait(ms ?? 0);
    return setTimer(handler, ms);
  });
}

function request(overrides: Partial<CompletionRequest> = {}): CompletionRequest {
  return {
    systemPrompt: 'You manage tasks.',
    messages: [
      { role: 'user', content: 'add buy milk' },
      { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'add_task', arguments: '{"title":"Buy milk"}' }] },
      { role: 'tool', toolCallId: 'call_1', name: 'add_task', content: '{"task":{"number":1}}', isError: false },
    ],
    tools: TODO_TOOLS,
    options: { temperature: 0.2, maxTokens: 256 },
    signal: new AbortController().signal,
    ...overrides,
  };
}

describe(OpenAiLanguageModel.name, () => {
  let fake: FakeProviderServer;
  let sut: OpenAiLanguageModel;

  beforeAll(async () => {
    fake = await FakeProviderServer.start();
  });

  beforeEach(() => {
    const client = new OpenAI({ apiKey: KEY, baseURL: `${fake.url}/v1`, maxRetries: 0 });
    sut = new OpenAiLanguageModel(client, { provider: 'openai', model: 'gpt-test', retry });
  });

  afterEach(() => jest.restoreAllMocks());

  afterAll(async () => {
    await fake?.stop();
  });

  it('sends the system prompt, the conversation, tool results and the tools, and reads tool calls back', async () => {
    fake.respond(() => ({
      json: chatCompletion({ tool_calls: [toolCall('call_2', 'list_tasks', '{"status":"pending"}')] }, 'tool_calls'),
    }));
    const completion = await sut.complete(request());

    expect(completion).toEqual({
      text: null,
      toolCalls: [{ id: 'call_2', name: 'list_tasks', arguments: '{"status":"pending"}' }],
      usage: { promptTokens: 42, completionTokens: 7 },
      finishReason: 'tool_calls',
      model: 'fake-model',
    });
    const [sent] = fake.requests;
    expect(sent.url).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.body).toMatchObject({
      model: 'gpt-test',
      temperature: 0.2,
      max_tokens: 256,
      tool_choice: 'auto',
      messages: [
        { role: 'system', content: 'You manage tasks.' },
        { role: 'user', content: 'add buy milk' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'add_task', arguments: '{"title":"Buy milk"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"task":{"number":1}}' },
      ],
    });
    const tools = sent.body.tools as { type: string; function: { name: string; parameters: unknown } }[];
    expect(tools.map((tool) => tool.function.name)).toEqual(TODO_TOOLS.map((tool) => tool.name));
    expect(tools[0]).toEqual({
      type: 'function',
      function: { name: 'add_task', description: TODO_TOOLS[0].description, parameters: TODO_TOOLS[0].inputSchema },
    });
  });

  it('asks for one JSON object in JSON mode, without tools', async () => {
    fake.respond(() => ({ json: chatCompletion({ content: '{"action":"wait"}' }) }));
    const completion = await sut.complete(request({ options: { jsonMode: true } }));
    expect(completion.text).toBe('{"action":"wait"}');
    expect(fake.requests[0].body).toMatchObject({ response_format: { type: 'json_object' } });
    expect(fake.requests[0].body.tools).toBeUndefined();
  });

  it('recovers from a non-JSON JSON-mode answer by re-asking once, then reports a typed failure', async () => {
    const check = (value: unknown) => ({ ok: true as const, value });
    fake.respond((_, i) => ({ json: chatCompletion({ content: i === 0 ? 'I think you should wait.' : '{"action":"wait"}' }) }));
    await expect(completeJson(sut, request({ options: {} }), check)).resolves.toMatchObject({ value: { action: 'wait' }, attempts: 2 });
    expect((fake.requests[1].body.messages as { role: string; content: string }[]).at(-1)?.content).toContain('not valid JSON');

    fake.respond(() => ({ json: chatCompletion({ content: 'still prose' }) }));
    await expect(completeJson(sut, request({ options: {} }), check)).rejects.toThrow(LanguageModelInvalidJsonError);
  });

  it('passes malformed tool-call argument JSON through untouched, for the agent to reject', async () => {
    fake.respond(() => ({ json: chatCompletion({ tool_calls: [toolCall('c', 'add_task', '{"title": "Buy')] }, 'tool_calls') }));
    await expect(sut.complete(request())).resolves.toMatchObject({ toolCalls: [{ arguments: '{"title": "Buy' }] });
  });

  it('honours retry-after on 429, then succeeds', async () => {
    fake.respond((_, i) =>
      i === 0
        ? { status: 429, headers: { 'retry-after': '1' }, json: { error: { message: 'slow down' } } }
        : { json: chatCompletion({ content: 'ok' }) },
    );
    // An attempt's own timer is not one second long here, so a timer of one second is the wait.
    const client = new OpenAI({ apiKey: KEY, baseURL: `${fake.url}/v1`, maxRetries: 0 });
    const patient = new OpenAiLanguageModel(client, { provider: 'openai', model: 'gpt-test', retry: { ...retry, timeoutMs: 5_000 } });
    const waits = recordWaits();
    await expect(patient.complete(request())).resolves.toMatchObject({ text: 'ok' });
    expect(waits.mock.calls.filter(([, ms]) => ms === 1_000)).toHaveLength(1);
    expect(fake.requests).toHaveLength(2);
  });

  it('gives up on a rate limit after two retries, and at once when retry-after is too long', async () => {
    fake.respond(() => ({ status: 429, headers: { 'retry-after-ms': '10' }, json: { error: { message: 'no' } } }));
    await expect(sut.complete(request())).rejects.toThrow(LanguageModelRateLimitError);
    expect(fake.requests).toHaveLength(3);
    fake.respond(() => ({ status: 429, headers: { 'retry-after': '60' }, json: { error: { message: 'no' } } }));
    await expect(sut.complete(request())).rejects.toThrow(LanguageModelRateLimitError);
    expect(fake.requests).toHaveLength(1);
  });

  it('retries 503 then succeeds; reports a lasting 500 as unavailable with the request id', async () => {
    fake.respond((_, i) =>
      i === 0 ? { status: 503, json: { error: { message: 'busy' } } } : { json: chatCompletion({ content: 'back' }) },
    );
    await expect(sut.complete(request())).resolves.toMatchObject({ text: 'back' });

    fake.respond(() => ({ status: 500, headers: { 'x-request-id': 'req_abc123' }, json: { error: { message: 'boom' } } }));
    const failure = await sut.complete(request()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LanguageModelUnavailableError);
    expect(failure).toMatchObject({ requestId: 'req_abc123' });
    expect(fake.requests).toHaveLength(3);
  });

  it('reports a hang past the timeout as a timeout, and a broken connection as unavailable', async () => {
    fake.respond(() => ({ hang: true }));
    await expect(sut.complete(request())).rejects.toThrow(LanguageModelTimeoutError);
    expect(fake.requests).toHaveLength(1);
    fake.respond(() => ({ destroy: true }));
    await expect(sut.complete(request())).rejects.toThrow(LanguageModelUnavailableError);
    expect(fake.requests).toHaveLength(3);
  });

  it("stops when the turn's deadline passes, even while waiting to retry", async () => {
    fake.respond(() => ({ status: 429, headers: { 'retry-after': '2' }, json: { error: { message: 'wait' } } }));
    const controller = new AbortController();
    // The turn ends as soon as the adapter starts the two seconds' wait the provider asked for.
    recordWaits((ms) => ms === 2_000 && setImmediate(() => controller.abort()));
    const failure = sut.complete(request({ signal: controller.signal }));
    await expect(failure).rejects.toThrow(LanguageModelTimeoutError);
    await expect(failure).rejects.toThrow('The turn ended while waiting to retry');
    expect(fake.requests).toHaveLength(1);
  });

  it('maps refusals: a content filter, and a bad request that is not retried', async () => {
    fake.respond(() => ({ json: chatCompletion({ content: null }, 'content_filter') }));
    await expect(sut.complete(request())).rejects.toThrow(LanguageModelContentFilterError);
    fake.respond(() => ({ status: 400, json: { error: { message: 'bad', code: 'invalid_value' } } }));
    await expect(sut.complete(request())).rejects.toThrow(LanguageModelBadRequestError);
    expect(fake.requests).toHaveLength(1);
  });

  it('never puts the key in what it throws', async () => {
    fake.respond(() => ({ status: 401, json: { error: { message: 'Incorrect API key provided' } } }));
    const failure = (await sut.complete(request()).catch((error: unknown) => error)) as Error;
    expect(failure).toBeInstanceOf(LanguageModelUnavailableError);
    expect(fake.requests).toHaveLength(1);
    expect(JSON.stringify({ message: failure.message, stack: failure.stack })).not.toContain(KEY);
  });

  it('speaks to Azure OpenAI through its deployment path, api-version and api-key header', async () => {
    const azure = new OpenAiLanguageModel(
      new AzureOpenAI({ apiKey: KEY, endpoint: fake.url, deployment: 'tasks-gpt', apiVersion: '2024-10-21', maxRetries: 0 }),
      { provider: 'azure-openai', model: 'tasks-gpt', retry },
    );
    fake.respond(() => ({ json: chatCompletion({ content: 'hello from azure' }) }));
    await expect(azure.complete(request())).resolves.toMatchObject({ text: 'hello from azure' });
    const [sent] = fake.requests;
    expect(sent.url).toBe('/openai/deployments/tasks-gpt/chat/completions?api-version=2024-10-21');
    expect(sent.headers['api-key']).toBe(KEY);
    expect(sent.body.messages).toEqual(expect.arrayContaining([{ role: 'system', content: 'You manage tasks.' }]));
  });

  describe('stream', () => {
    const hello = [
      chatChunk({ role: 'assistant', content: '' }),
      textChunk('Hello'),
      textChunk(', world'),
      finishChunk('stop'),
      usageChunk(),
    ];

    it('asks for a stream with usage, tells each piece of text before the last chunk is written, and returns the whole answer', async () => {
      const last = gate();
      fake.respond(() => openAiStream(hello, { until: last.promise }));
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
      expect(pieces).toEqual(['Hello', ', world']);
      expect(completion).toEqual({
        text: 'Hello, world',
        toolCalls: [],
        usage: { promptTokens: 42, completionTokens: 7 },
        finishReason: 'stop',
        model: 'fake-model',
      });
      const [sent] = fake.requests;
      expect(sent.url).toBe('/v1/chat/completions');
      expect(sent.body).toMatchObject({
        model: 'gpt-test',
        stream: true,
        stream_options: { include_usage: true },
        temperature: 0.2,
        max_tokens: 256,
        tool_choice: 'auto',
        messages: expect.arrayContaining([{ role: 'system', content: 'You manage tasks.' }]),
      });
    });

    it('puts tool calls together from their deltas by index, and tells no text for them', async () => {
      fake.respond(() =>
        openAiStream([
          chatChunk({ role: 'assistant', content: null }),
          toolCallChunk(0, { id: 'call_a', name: 'add_task' }),
          toolCallChunk(0, { arguments: '{"title":' }),
          toolCallChunk(1, { id: 'call_b', name: 'list_tasks' }),
          toolCallChunk(0, { arguments: '"Buy milk"}' }),
          toolCallChunk(1, { arguments: '{"status":' }),
          toolCallChunk(1, { arguments: '"pending"}' }),
          finishChunk('tool_calls'),
          usageChunk(50, 12),
        ]),
      );
      const onText = jest.fn();
      await expect(sut.stream(request(), onText)).resolves.toEqual({
        text: null,
        toolCalls: [
          { id: 'call_a', name: 'add_task', arguments: '{"title":"Buy milk"}' },
          { id: 'call_b', name: 'list_tasks', arguments: '{"status":"pending"}' },
        ],
        usage: { promptTokens: 50, completionTokens: 12 },
        finishReason: 'tool_calls',
        model: 'fake-model',
      });
      expect(onText).not.toHaveBeenCalled();
    });

    it('puts tool calls together when the deltas carry no index, as some compatible servers send them', async () => {
      const call = (id: string | undefined, name: string | undefined, args: string) =>
        chatChunk({ tool_calls: [{ ...(id ? { id, type: 'function' } : {}), function: { ...(name ? { name } : {}), arguments: args } }] });
      fake.respond(() =>
        openAiStream([
          call('call_a', 'add_task', '{"title":'),
          call(undefined, undefined, '"Milk"}'),
          call('call_b', 'list_tasks', '{}'),
          finishChunk('stop'),
          usageChunk(),
        ]),
      );
      await expect(sut.stream(request(), () => {})).resolves.toMatchObject({
        toolCalls: [
          { id: 'call_a', name: 'add_task', arguments: '{"title":"Milk"}' },
          { id: 'call_b', name: 'list_tasks', arguments: '{}' },
        ],
      });
    });

    it('retries a 429, a 500 and a broken stream that came before the first piece', async () => {
      for (const failure of [
        { status: 429, headers: { 'retry-after-ms': '10' }, json: { error: { message: 'slow down' } } },
        { status: 500, json: { error: { message: 'boom' } } },
        openAiStream(hello, { failAfter: 1 }),
      ]) {
        fake.respond((_, i) => (i === 0 ? failure : openAiStream(hello)));
        const pieces: string[] = [];
        await expect(sut.stream(request(), (text) => pieces.push(text))).resolves.toMatchObject({ text: 'Hello, world' });
        expect(fake.requests).toHaveLength(2);
        expect(pieces).toEqual(['Hello', ', world']);
      }
    });

    it('reports a connection broken after the first piece as unavailable, without a retry', async () => {
      fake.respond(() => openAiStream(hello, { failAfter: 2 }));
      const pieces: string[] = [];
      const failure = await sut.stream(request(), (text) => pieces.push(text)).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(LanguageModelUnavailableError);
      expect(fake.requests).toHaveLength(1);
      expect(pieces).toEqual(['Hello']);
    });

    it('reports a stream that ends before its finish reason as unavailable, and a filtered empty one as filtered', async () => {
      fake.respond(() => openAiStream([textChunk('Hel')]));
      await expect(sut.stream(request(), () => {})).rejects.toThrow(LanguageModelUnavailableError);
      expect(fake.requests).toHaveLength(1);
      fake.respond(() => openAiStream([chatChunk({ role: 'assistant', content: '' }), finishChunk('content_filter'), usageChunk()]));
      await expect(sut.stream(request(), () => {})).rejects.toThrow(LanguageModelContentFilterError);
    });

    it("cancels a stream that hangs mid-way when the turn's deadline passes", async () => {
      fake.respond(() => openAiStream([textChunk('Hel'), textChunk('lo')], { until: new Promise(() => {}) }));
      const patient = new OpenAiLanguageModel(new OpenAI({ apiKey: KEY, baseURL: `${fake.url}/v1`, maxRetries: 0 }), {
        provider: 'openai',
        model: 'gpt-test',
        retry: { ...retry, timeoutMs: 60_000 },
      });
      const controller = new AbortController();
      const streaming = patient.stream(request({ signal: controller.signal }), () => controller.abort());
      // The stream never ends and the attempt's timeout is a minute away: only the abort can end it.
      await expect(within(5_000, 'stream() did not stop on abort', streaming)).rejects.toThrow(LanguageModelTimeoutError);
      await expect(streaming).rejects.toThrow('The turn ended before the model answered');
      expect(fake.requests).toHaveLength(1);
    });
  });
});
