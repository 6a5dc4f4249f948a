import request from 'supertest';
import { TREATMENTS } from '../../src/domain/agent/failures';
import {
  chatChunk,
  chatCompletion,
  type FakeAnswer,
  FakeProviderServer,
  type FakeStream,
  finishChunk,
  gate,
  geminiChunk,
  geminiResponse,
  geminiStream,
  openAiStream,
  type RecordedRequest,
  textChunk,
  toolCall,
  toolCallChunk,
  usageChunk,
  within,
} from '../support/fake-provider-server';
import { BOUND_MS, SseClient } from '../support/sse-client';
import { useTestApp } from '../support/test-app';

const TEST_MS = 60_000;

/** The model's answer after add_task, in the pieces the provider streams. */
const ANSWER = ['Got it! ', "Added 'Buy milk' ", 'to your list.'];
const ANSWER_TEXT = ANSWER.join('');

/** How one provider's wire format says each thing, streamed or not. */
interface Provider {
  readonly name: string;
  env(fake: FakeProviderServer): Record<string, string>;
  /** The request asks for a streamed answer. */
  streaming(req: RecordedRequest): boolean;
  /** The request's last message is a tool result: the model is to word the answer. */
  answeringTool(req: RecordedRequest): boolean;
  /** An answer asking for add_task {"title":"Buy milk"}. */
  callAddTask(streamed: boolean): FakeAnswer;
  /** A streamed text answer in these pieces. */
  text(pieces: readonly string[], options?: { until?: Promise<void>; failAfter?: number }): FakeStream;
  plainText(text: string): FakeAnswer;
  rateLimited(): FakeAnswer;
}

const openai: Provider = {
  name: 'openai',
  // One retry allowed, so that "no retry after a token" is the adapter's choice, not the configuration's.
  env: (fake) => ({ ...fake.openAiEnv, LLM_MAX_RETRIES: '1', LLM_RETRY_MAX_WAIT_MS: '1000' }),
  streaming: (req) => req.body.stream === true,
  answeringTool: (req) => (req.body.messages as { role: string }[]).at(-1)?.role === 'tool',
  callAddTask: (streamed) =>
    streamed
      ? openAiStream([
          toolCallChunk(0, { id: 'call_1', name: 'add_task' }),
          toolCallChunk(0, { arguments: '{"title":' }),
          toolCallChunk(0, { arguments: '"Buy milk"}' }),
          finishChunk('tool_calls'),
          usageChunk(),
        ])
      : { json: chatCompletion({ tool_calls: [toolCall('call_1', 'add_task', '{"title":"Buy milk"}')] }, 'tool_calls') },
  // The last piece comes with the finish reason and the usage, as OpenAI-compatible servers (Gemini's) send it:
  // the chunk a gate holds back carries text, so text does arrive after the gate opens.
  text: (pieces, options = {}) =>
    openAiStream(
      [
        ...pieces.slice(0, -1).map(textChunk),
        { ...(chatChunk({ content: pieces.at(-1) }, 'stop') as object), usage: (usageChunk() as { usage: unknown }).usage },
      ],
      options,
    ),
  plainText: (text) => ({ json: chatCompletion({ content: text }) }),
  rateLimited: () => ({ status: 429, headers: { 'retry-after-ms': '10' }, json: { error: { message: 'slow down', type: 'rate_limit' } } }),
};

const gemini: Provider = {
  name: 'gemini',
  env: (fake) => ({
    LLM_PROVIDER: 'gemini',
    GEMINI_API_KEY: 'AIza-not-a-real-key',
    GEMINI_MODEL: 'gemini-test',
    GEMINI_BASE_URL: fake.url,
    LLM_MAX_RETRIES: '1',
    LLM_RETRY_MAX_WAIT_MS: '1000',
  }),
  streaming: (req) => req.url.includes(':streamGenerateContent'),
  answeringTool: (req) =>
    (req.body.contents as { parts: { functionResponse?: unknown }[] }[]).at(-1)?.parts.some((part) => part.functionResponse) ?? false,
  callAddTask: (streamed) => {
    const body = geminiResponse([{ functionCall: { id: 'fc_1', name: 'add_task', args: { title: 'Buy milk' } } }]);
    return streamed ? geminiStream([body]) : { json: body };
  },
  // Every piece but the last without a finish reason; the last one (the gated one) ends the answer.
  text: (pieces, options = {}) =>
    geminiStream([...pieces.slice(0, -1).map((text) => geminiChunk([{ text }])), geminiResponse([{ text: pieces.at(-1) }])], options),
  plainText: (text) => ({ json: geminiResponse([{ text }]) }),
  rateLimited: () => ({ status: 429, json: { error: { code: 429, message: 'quota', status: 'RESOURCE_EXHAUSTED' } } }),
};

/** How many payloads a stream answer writes in all (OpenAI's `[DONE]` included). */
const payloads = (answer: FakeStream) => answer.stream.length + (answer.done === undefined ? 0 : 1);

type ToolCallBody = { tool: string; arguments: unknown; success: boolean };
const calls = (toolCalls: unknown) => (toolCalls as ToolCallBody[]).map(({ tool, arguments: args, success }) => ({ tool, args, success }));

describe.each([openai, gemini])('POST /chat/stream with LLM_PROVIDER=$name: its real SDK streaming from a local server', (provider) => {
  let fake: FakeProviderServer;
  /** Opened and aborted after each test, so that a failing test leaves nothing hanging for afterAll. */
  const gates: (() => void)[] = [];
  const clients: SseClient[] = [];

  beforeAll(async () => {
    fake = await FakeProviderServer.start();
  }, TEST_MS);
  // Before the app closes: a stream the fake still holds open would keep it from closing.
  afterAll(() => fake?.stop(), TEST_MS);
  const sut = useTestApp({ env: () => provider.env(fake) });
  const me = sut.user();

  afterEach(async () => {
    for (const open of gates.splice(0)) open();
    await Promise.all(clients.splice(0).map((client) => client.abort()));
  });

  function chatStream(message: string): SseClient {
    const client = new SseClient(`${sut.http}/api/${me.userId}/chat/stream`, me.token, { message });
    clients.push(client);
    return client;
  }

  function gated() {
    const g = gate();
    gates.push(g.open);
    return g;
  }

  const answering = () => fake.requests.filter((req) => provider.answeringTool(req));

  async function messages(conversationId: string): Promise<Record<string, unknown>[]> {
    const res = await request(sut.http).get(`/api/${me.userId}/conversations/${conversationId}/messages`).set(me.auth).expect(200);
    return res.body.items as Record<string, unknown>[];
  }

  /** The conversation's answer, once its turn is stored (its row is listed only then). */
  function storedAnswer(conversationId: string): Promise<Record<string, unknown>> {
    return within(
      BOUND_MS,
      `the turn of conversation ${conversationId} was not stored within ${BOUND_MS} ms`,
      (async () => {
        for (;;) {
          const last = (await messages(conversationId)).at(-1);
          if (last?.role === 'assistant') return last;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })(),
    );
  }

  async function conversationIds(): Promise<string[]> {
    const res = await request(sut.http).get(`/api/${me.userId}/conversations?limit=100`).set(me.auth).expect(200);
    return (res.body.items as { id: string }[]).map((conversation) => conversation.id);
  }

  it(
    'sends the first delta to the HTTP client before the provider sends its last chunk',
    async () => {
      const last = gated();
      const answer = provider.text(ANSWER, { until: last.promise });
      fake.respond((req) => (provider.answeringTool(req) ? answer : provider.callAddTask(true)));

      const client = chatStream('add buy milk');
      // Recorded the moment the delta was read: how much of the answer the provider had written.
      let writtenAtFirstDelta = -1;
      const first = await client.waitFor("a delta before the provider's last chunk (is the answer buffered?)", (event) => {
        if (event.event !== 'delta') return false;
        writtenAtFirstDelta = answering()[0].written.length;
        return true;
      });
      expect(writtenAtFirstDelta).toBeGreaterThan(0);
      expect(writtenAtFirstDelta).toBeLessThan(answer.stream.length);
      expect(ANSWER_TEXT.startsWith(first.data.text as string)).toBe(true);
      expect(client.names).not.toContain('done');
      // What the client has read is the start of the answer; the rest waits behind the gate.
      const readBeforeGate = client.deltas.join('');
      expect(ANSWER_TEXT.startsWith(readBeforeGate)).toBe(true);
      expect(readBeforeGate.length).toBeLessThan(ANSWER_TEXT.length);

      last.open();
      const events = await client.end();
      expect(answering()[0].written).toHaveLength(payloads(answer));
      const names = client.names;
      const firstDelta = names.indexOf('delta');
      expect(names.indexOf('tool_call')).toBeGreaterThanOrEqual(0);
      expect(names.indexOf('tool_call')).toBeLessThan(names.indexOf('tool_result'));
      expect(names.lastIndexOf('tool_result')).toBeLessThan(firstDelta);
      expect(new Set(names.slice(firstDelta, -1))).toEqual(new Set(['delta']));
      expect(names.at(-1)).toBe('done');
      expect(events[names.indexOf('tool_call')].data).toEqual({ tool: 'add_task', arguments: { title: 'Buy milk' } });
      expect(events[names.indexOf('tool_result')].data).toMatchObject({ tool: 'add_task', success: true });

      const done = events.at(-1)!.data;
      expect(done).toMatchObject({ status: 'completed', finishReason: 'stop', response: ANSWER_TEXT, warning: null });
      expect(client.deltas.join('')).toBe(done.response);
      expect(calls(done.toolCalls)).toEqual([{ tool: 'add_task', args: { title: 'Buy milk' }, success: true }]);
      // Both model calls were streamed: the tool call's, then the answer's.
      expect(fake.requests).toHaveLength(2);
      expect(fake.requests.every((req) => provider.streaming(req))).toBe(true);
    },
    TEST_MS,
  );

  it(
    'retries a 429 that came before the first token, then streams the answer',
    async () => {
      fake.respond((req) => {
        if (!provider.answeringTool(req)) return provider.callAddTask(true);
        // This request is already recorded: the first attempt of the answer is refused.
        return answering().length === 1 ? provider.rateLimited() : provider.text(ANSWER);
      });

      const client = chatStream('add buy milk');
      const events = await client.end();
      const done = events.at(-1)!;
      expect(done).toMatchObject({ event: 'done', data: { status: 'completed', finishReason: 'stop', response: ANSWER_TEXT } });
      expect(client.names).not.toContain('error');
      expect(answering()).toHaveLength(2);
      expect(answering().every((req) => provider.streaming(req))).toBe(true);
      expect(client.deltas.join('')).toBe(done.data.response);
    },
    TEST_MS,
  );

  it(
    'ends the stream with the friendly error event when the provider fails after the first token, and does not retry',
    async () => {
      fake.respond((req) =>
        provider.answeringTool(req) ? provider.text(['Let me ', 'check ', 'that.'], { failAfter: 1 }) : provider.callAddTask(true),
      );

      const client = chatStream('add buy milk');
      const events = await client.end();
      const names = client.names;
      const sentence = TREATMENTS.PROVIDER_UNAVAILABLE.userSees;
      expect(sentence).toBe("I'm having trouble connecting to my AI service. Please try again.");
      // The piece the provider sent reached the client (its trailing space waits for more text).
      const firstDelta = names.indexOf('delta');
      expect(firstDelta).toBeGreaterThan(names.lastIndexOf('tool_result'));
      expect(events[firstDelta].data).toEqual({ text: 'Let me' });
      // Then the error event after every delta, then done.
      expect(names.slice(-2)).toEqual(['error', 'done']);
      expect(names.filter((name) => name === 'error')).toHaveLength(1);
      expect(names.lastIndexOf('delta')).toBeLessThan(names.indexOf('error'));
      expect(events.at(-2)!.data).toEqual({ message: sentence, category: 'PROVIDER_UNAVAILABLE' });
      const done = events.at(-1)!.data;
      expect(done).toMatchObject({ status: 'error', finishReason: 'error', success: false, error: events.at(-2)!.data });
      expect(client.deltas.join('')).toBe(done.response);
      expect(done.response).toBe(`Let me\n\n${sentence}`);
      // One request for the answer, though a retry was allowed: a token had gone out.
      expect(answering()).toHaveLength(1);
      expect(answering()[0].written).toHaveLength(1);
      expect(await storedAnswer(done.conversationId as string)).toMatchObject({ content: done.response, status: 'error' });
    },
    TEST_MS,
  );

  it(
    'stores the same turn as the plain endpoint, and done carries the plain body',
    async () => {
      // The same conversation, said in each endpoint's wire format.
      fake.respond((req) => {
        if (!provider.answeringTool(req)) return provider.callAddTask(provider.streaming(req));
        return provider.streaming(req) ? provider.text(ANSWER) : provider.plainText(ANSWER_TEXT);
      });
      const plain = await request(sut.http).post(`/api/${me.userId}/chat`).set(me.auth).send({ message: 'add buy milk' }).expect(200);
      const plainRequests = fake.requests.splice(0);
      expect(plainRequests).toHaveLength(2);
      expect(plainRequests.some((req) => provider.streaming(req))).toBe(false);

      const client = chatStream('add buy milk');
      const events = await client.end();
      expect(fake.requests).toHaveLength(2);
      expect(fake.requests.every((req) => provider.streaming(req))).toBe(true);
      const done = events.at(-1)!;
      expect(done.event).toBe('done');
      expect(done.data.conversationId).not.toBe(plain.body.conversationId);

      const comparable = (body: Record<string, unknown>) => ({
        response: body.response,
        status: body.status,
        finishReason: body.finishReason,
        warning: body.warning,
        decision: (body.decision as { type: string }).type,
        toolCalls: calls(body.toolCalls),
      });
      expect(comparable(plain.body)).toEqual({
        response: ANSWER_TEXT,
        status: 'completed',
        finishReason: 'stop',
        warning: null,
        decision: 'INVOKE_TOOL',
        toolCalls: [{ tool: 'add_task', args: { title: 'Buy milk' }, success: true }],
      });
      expect(comparable(done.data)).toEqual(comparable(plain.body));
      expect(client.deltas.join('')).toBe(plain.body.response);

      const stored = (message: Record<string, unknown>) => ({
        content: message.content,
        decisionType: message.decisionType,
        status: message.status,
        toolCalls: calls(message.toolCalls),
      });
      const storedPlain = stored(await storedAnswer(plain.body.conversationId));
      expect(storedPlain).toEqual({
        content: ANSWER_TEXT,
        decisionType: 'INVOKE_TOOL',
        status: 'completed',
        toolCalls: [{ tool: 'add_task', args: { title: 'Buy milk' }, success: true }],
      });
      expect(stored(await storedAnswer(done.data.conversationId as string))).toEqual(storedPlain);
    },
    TEST_MS,
  );

  it(
    'stores the whole turn for a client that went away mid-answer',
    async () => {
      const last = gated();
      const answer = provider.text(ANSWER, { until: last.promise });
      fake.respond((req) => (provider.answeringTool(req) ? answer : provider.callAddTask(true)));
      const before = new Set(await conversationIds());

      const client = chatStream('add buy milk');
      await client.waitFor('a delta', (event) => event.event === 'delta');
      // The person's message is stored when the turn starts: its conversation is the new one.
      const started = (await conversationIds()).filter((id) => !before.has(id));
      expect(started).toHaveLength(1);
      const [conversationId] = started;

      await client.abort();
      expect(client.names).not.toContain('done');
      const readByClient = client.deltas.join('');
      expect(readByClient.length).toBeLessThan(ANSWER_TEXT.length);
      // The answer is not stored while the provider still holds its last chunk.
      expect((await messages(conversationId)).map((message) => message.role)).toEqual(['user']);
      expect(answering()[0].written.length).toBeLessThan(answer.stream.length);

      last.open();
      expect(await storedAnswer(conversationId)).toMatchObject({
        content: ANSWER_TEXT,
        status: 'completed',
        decisionType: 'INVOKE_TOOL',
        toolCalls: [expect.objectContaining({ tool: 'add_task', arguments: { title: 'Buy milk' }, success: true })],
      });
      // The client had left with part of it.
      expect(ANSWER_TEXT.startsWith(readByClient)).toBe(true);
      // The provider's answer was read to its end: leaving did not cancel the model call.
      expect(answering()).toHaveLength(1);
      expect(answering()[0].written).toHaveLength(payloads(answer));
    },
    TEST_MS,
  );
});
