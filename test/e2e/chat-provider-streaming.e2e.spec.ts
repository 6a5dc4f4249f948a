import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { TREATMENTS } from '../../src/domain/agent/failures';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import {
  chatCompletion,
  type FakeAnswer,
  FakeProviderServer,
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
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

interface SseEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
}

/** A real HTTP client reading the event stream as it arrives. */
class SseClient {
  readonly events: SseEvent[] = [];
  readonly finished: Promise<void>;
  private readonly controller = new AbortController();
  private readonly listeners = new Set<() => void>();

  constructor(url: string, token: string, body: object) {
    this.finished = this.read(url, token, body);
  }

  /** Resolves once an event matching `match` was read. */
  async waitFor(match: (event: SseEvent) => boolean, what: string): Promise<SseEvent> {
    const found = () => this.events.find(match);
    return within(
      15_000,
      `no ${what} reached the client`,
      new Promise<SseEvent>((resolve) => {
        const check = () => {
          const event = found();
          if (event) {
            this.listeners.delete(check);
            resolve(event);
          }
        };
        this.listeners.add(check);
        check();
      }),
    );
  }

  abort(): void {
    this.controller.abort();
  }

  private async read(url: string, token: string, body: object): Promise<void> {
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: this.controller.signal,
    });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split('\n');
          const event = lines.find((line) => line.startsWith('event: '))!.slice(7);
          const data = JSON.parse(lines.find((line) => line.startsWith('data: '))!.slice(6)) as Record<string, unknown>;
          this.events.push({ event, data });
          for (const listener of [...this.listeners]) listener();
        }
      }
    } catch (error) {
      if (!this.controller.signal.aborted) throw error;
    }
  }

  get deltas(): string {
    return this.events
      .filter((event) => event.event === 'delta')
      .map((event) => event.data.text as string)
      .join('');
  }
}

const ANSWER = ['Got it! ', "Added 'Buy milk' ", 'to your list.'];

/** How one provider's wire format says each thing, streamed or not. */
interface Provider {
  readonly name: string;
  env(fake: FakeProviderServer): Record<string, string>;
  streaming(req: RecordedRequest): boolean;
  answeringTool(req: RecordedRequest): boolean;
  callAddTask(streamed: boolean): FakeAnswer;
  text(pieces: readonly string[], options?: { until?: Promise<void>; failAfter?: number }): FakeAnswer;
  plainText(text: string): FakeAnswer;
  rateLimited(): FakeAnswer;
}

const openai: Provider = {
  name: 'openai',
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
  text: (pieces, options = {}) => openAiStream([...pieces.map(textChunk), finishChunk('stop'), usageChunk()], options),
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
  streaming: (req) => req.url.includes('streamGenerateContent'),
  answeringTool: (req) =>
    (req.body.contents as { parts: { functionResponse?: unknown }[] }[]).at(-1)?.parts.some((part) => part.functionResponse) ?? false,
  callAddTask: (streamed) => {
    const body = geminiResponse([{ functionCall: { id: 'fc_1', name: 'add_task', args: { title: 'Buy milk' } } }]);
    return streamed ? geminiStream([body]) : { json: body };
  },
  // Every piece but the last without a finish reason; the last one ends the answer.
  text: (pieces, options = {}) =>
    geminiStream([...pieces.slice(0, -1).map((text) => geminiChunk([{ text }])), geminiResponse([{ text: pieces.at(-1) }])], options),
  plainText: (text) => ({ json: geminiResponse([{ text }]) }),
  rateLimited: () => ({ status: 429, json: { error: { code: 429, message: 'quota', status: 'RESOURCE_EXHAUSTED' } } }),
};

describe.each([openai, gemini])('streaming through POST /chat/stream, LLM_PROVIDER=$name (its real SDK against a local server)', (provider) => {
  let fake: FakeProviderServer;
  let db: TestDatabase;
  let sut: TestApp;
  let me: SignedInUser;
  let base: string;

  beforeAll(async () => {
    fake = await FakeProviderServer.start();
    db = await createTestDatabase();
    sut = await startTestApp(db, provider.env(fake));
    await sut.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(sut.app.getHttpServer().address() as AddressInfo).port}`;
    me = await signUpAndIn(sut.http);
  }, 60_000);

  afterAll(async () => {
    await sut?.close();
    await db?.dispose();
    await fake?.stop();
  });

  const stream = (message: string, conversationId?: string) =>
    new SseClient(`${base}/api/${me.userId}/chat/stream`, me.token, { message, ...(conversationId ? { conversationId } : {}) });

  /** The stored conversation's answer, once its turn is stored. */
  async function storedAnswer(conversationId: string) {
    return within(
      15_000,
      'the turn was never stored',
      (async () => {
        for (;;) {
          const res = await request(sut.http).get(`/api/${me.userId}/conversations/${conversationId}/messages`).set(me.auth).expect(200);
          const last = (res.body.items as { role: string; status: string | null }[]).at(-1);
          if (last?.role === 'assistant' && last.status !== 'in_progress') return res.body.items.at(-1) as Record<string, unknown>;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })(),
    );
  }

  it('sends the first delta before the provider sends its last chunk', async () => {
    const last = gate();
    const answer = provider.text(ANSWER, { until: last.promise }) as { stream: readonly string[] };
    fake.respond((req) => (provider.answeringTool(req) ? (answer) : provider.callAddTask(true)));
    const client = stream('add buy milk');
    await client.waitFor((event) => event.event === 'delta', 'delta');
    const answering = fake.requests.find((req) => provider.answeringTool(req))!;
    // The provider has not sent its last chunk (it waits for the gate): the delta came from one before it.
    expect(answering.written.length).toBeLessThan(answer.stream.length);
    last.open();
    await within(15_000, 'the stream never ended', client.finished);

    const names = client.events.map((event) => event.event);
    expect(names.slice(0, 2)).toEqual(['tool_call', 'tool_result']);
    expect(names.at(-1)).toBe('done');
    const done = client.events.at(-1)!.data;
    expect(done).toMatchObject({ status: 'completed', finishReason: 'stop', response: ANSWER.join('').trim() });
    expect(client.deltas).toBe(done.response);
    expect(fake.requests.every((req) => provider.streaming(req))).toBe(true);
  }, 60_000);

  it('retries a 429 that came before the first token', async () => {
    let answers = 0;
    fake.respond((req) => {
      if (!provider.answeringTool(req)) return provider.callAddTask(true);
      return answers++ === 0 ? provider.rateLimited() : provider.text(ANSWER);
    });
    const client = stream('add buy milk');
    await within(15_000, 'the stream never ended', client.finished);
    const done = client.events.at(-1)!;
    expect(done).toMatchObject({ event: 'done', data: { status: 'completed', response: ANSWER.join('').trim() } });
    expect(fake.requests.filter((req) => provider.answeringTool(req))).toHaveLength(2);
    expect(client.deltas).toBe(done.data.response);
  }, 60_000);

  it('ends the stream with the friendly error event when the provider fails after the first token, without a retry', async () => {
    fake.respond(() => provider.text(['Let me ', 'look ', 'at that.'], { failAfter: 1 }));
    const client = stream('how are my tasks?');
    await within(15_000, 'the stream never ended', client.finished);
    const names = client.events.map((event) => event.event);
    expect(names[0]).toBe('delta');
    expect(client.events[0].data.text).toBe('Let me');
    const error = client.events.find((event) => event.event === 'error');
    expect(error?.data).toEqual({ message: TREATMENTS.PROVIDER_UNAVAILABLE.userSees });
    expect(client.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'error', finishReason: 'error' } });
    expect(fake.requests).toHaveLength(1);
  }, 60_000);

  it('stores the same turn as the plain endpoint', async () => {
    fake.respond((req) => {
      if (!provider.answeringTool(req)) return provider.callAddTask(provider.streaming(req));
      return provider.streaming(req) ? provider.text(ANSWER) : provider.plainText(ANSWER.join(''));
    });
    const plain = await request(sut.http).post(`/api/${me.userId}/chat`).set(me.auth).send({ message: 'add buy milk' }).expect(200);
    const client = stream('add buy milk');
    await within(15_000, 'the stream never ended', client.finished);
    const done = client.events.at(-1)!.data;

    const comparable = (turn: Record<string, unknown>) => ({
      response: turn.response,
      status: turn.status,
      finishReason: turn.finishReason,
      warning: turn.warning,
      decision: (turn.decision as { type: string }).type,
      toolCalls: (turn.toolCalls as { tool: string; arguments: unknown; success: boolean }[]).map(({ tool, arguments: args, success }) => ({
        tool,
        args,
        success,
      })),
    });
    expect(comparable(done)).toEqual(comparable(plain.body));
    const stored = (message: Record<string, unknown>) => ({
      content: message.content,
      decisionType: message.decisionType,
      status: message.status,
      toolCalls: (message.toolCalls as { tool: string; arguments: unknown; success: boolean }[]).map(({ tool, arguments: args, success }) => ({
        tool,
        args,
        success,
      })),
    });
    expect(stored(await storedAnswer(done.conversationId as string))).toEqual(stored(await storedAnswer(plain.body.conversationId)));
  }, 60_000);

  it('stores the whole turn for a client that went away mid-answer', async () => {
    const last = gate();
    fake.respond((req) => (provider.answeringTool(req) ? provider.text(ANSWER, { until: last.promise }) : provider.callAddTask(true)));
    const client = stream('add buy milk');
    await client.waitFor((event) => event.event === 'delta', 'delta');
    // The person's message is stored when the turn starts: the conversation is there already.
    const conversationId = await latestConversation();
    client.abort();
    await client.finished;
    last.open();
    expect(await storedAnswer(conversationId)).toMatchObject({ content: ANSWER.join('').trim(), status: 'completed' });
  }, 60_000);

  async function latestConversation(): Promise<string> {
    const res = await request(sut.http).get(`/api/${me.userId}/conversations`).set(me.auth).expect(200);
    return res.body.items[0].id as string;
  }
});
