import request from 'supertest';
import { DataSource } from 'typeorm';
import { TREATMENTS } from '../../src/domain/agent/failures';
import { parseSse, streamChat } from '../support/chat-stream';
import { chatCompletion, FakeProviderServer, type RecordedRequest, toolCall } from '../support/fake-provider-server';
import { useTestApp } from '../support/test-app';

const KEY = 'sk-e2e-not-a-real-key';

/** Acts like a model over the Chat Completions wire format: add, then say what it did. */
function addThenConfirm(req: RecordedRequest) {
  const messages = req.body.messages as { role: string; content: string | null }[];
  const last = messages[messages.length - 1];
  if (last.role === 'tool') return { json: chatCompletion({ content: "Got it! Added 'Buy milk' to your list." }) };
  return { json: chatCompletion({ tool_calls: [toolCall('call_1', 'add_task', '{"title":"Buy milk"}')] }, 'tool_calls') };
}

describe.each([
  ['openai', (url: string) => ({ LLM_PROVIDER: 'openai', OPENAI_API_KEY: KEY, OPENAI_MODEL: 'gpt-test', OPENAI_BASE_URL: `${url}/v1` })],
  [
    'azure-openai',
    (url: string) => ({
      LLM_PROVIDER: 'azure-openai',
      AZURE_OPENAI_API_KEY: KEY,
      AZURE_OPENAI_ENDPOINT: url,
      AZURE_OPENAI_DEPLOYMENT: 'gpt-test',
      AZURE_OPENAI_API_VERSION: '2024-10-21',
    }),
  ],
])('chat on LLM_PROVIDER=%s (a local server speaking its wire format)', (_, providerEnv) => {
  let fake: FakeProviderServer;
  beforeAll(async () => {
    fake = await FakeProviderServer.start();
  });
  const sut = useTestApp({
    env: () => ({
      ...providerEnv(fake.url),
      LLM_TIMEOUT_MS: '1000',
      LLM_RETRY_MAX_WAIT_MS: '100',
      LLM_PRICE_INPUT_PER_1K: '0.5',
      LLM_PRICE_OUTPUT_PER_1K: '1.5',
    }),
  });
  const user = sut.user();
  afterAll(() => fake?.stop());

  async function chat(message: string, sampling: { temperature?: number; maxTokens?: number } = {}) {
    const res = await request(sut.http)
      .post(`/api/${user.userId}/chat`)
      .set(user.auth)
      .send({ message, ...sampling })
      .expect(200);
    const reply = res.body as {
      conversationId: string;
      response: string;
      status: string;
      decision: { id: string };
      success: boolean;
      error: { message: string; category: string } | null;
    };
    const history = await request(sut.http)
      .get(`/api/${user.userId}/conversations/${reply.conversationId}/messages`)
      .set(user.auth)
      .expect(200);
    expect(history.body.items.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', message],
      ['assistant', reply.response],
    ]);
    return reply;
  }

  it('runs a tool loop through the provider: tool call, tool result back, final answer', async () => {
    fake.respond(addThenConfirm);
    const reply = await chat('please add buy milk');
    expect(reply).toMatchObject({ response: "Got it! Added 'Buy milk' to your list.", status: 'completed', success: true, error: null });
    const tasks = await request(sut.http).get(`/api/${user.userId}/tasks`).set(user.auth).expect(200);
    expect(tasks.body.map((t: { title: string }) => t.title)).toContain('Buy milk');

    expect(fake.requests).toHaveLength(2);
    const [first, second] = fake.requests.map((r) => r.body as { messages: Record<string, unknown>[]; tools: unknown[] });
    expect(first.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('task assistant') });
    expect(first.messages.at(-1)).toEqual({ role: 'user', content: 'please add buy milk' });
    expect(first.tools).toHaveLength(5);
    // The server's own sampling (LLM_TEMPERATURE, LLM_MAX_TOKENS) when the request sets none.
    expect(fake.requests.map((r) => [r.body.temperature, r.body.max_tokens])).toEqual([
      [0, 1024],
      [0, 1024],
    ]);
    expect(second.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_1',
      content: expect.stringContaining('"title":"Buy milk"'),
    });

    const [decision] = await sut.app
      .get(DataSource)
      .query<{ provider: string; model: string; prompt_tokens: number; completion_tokens: number; cost: string }[]>(
        'SELECT provider, model, prompt_tokens, completion_tokens, cost FROM decision_logs WHERE id = $1',
        [reply.decision.id],
      );
    // Two model calls of 42 + 7 tokens each, at 0.5 in and 1.5 out per 1 000 tokens.
    expect(decision).toMatchObject({ model: 'gpt-test', prompt_tokens: 84, completion_tokens: 14, cost: '0.063' });
  });

  it('lets the model correct malformed tool-call JSON', async () => {
    fake.respond((req, i) => {
      if (i === 0) return { json: chatCompletion({ tool_calls: [toolCall('bad', 'add_task', '{"title": "Buy')] }, 'tool_calls') };
      return addThenConfirm(req);
    });
    const reply = await chat('add buy milk again');
    expect(reply.status).toBe('completed');
    const toolError = (fake.requests[1].body.messages as { role: string; content: string }[]).at(-1);
    expect(toolError).toMatchObject({ role: 'tool', content: expect.stringContaining('MALFORMED_ARGUMENTS') });
  });

  it.each([
    [
      '429 with retry-after',
      { status: 429, headers: { 'retry-after-ms': '20' }, json: { error: { message: 'slow' } } },
      "I'm currently experiencing high demand. Please try again in a moment.",
      'RATE_LIMITED',
    ],
    [
      '500',
      { status: 500, headers: { 'x-request-id': 'req_e2e_500' }, json: { error: { message: 'boom' } } },
      "I'm having trouble connecting to my AI service. Please try again.",
      'PROVIDER_UNAVAILABLE',
    ],
    ['a hang past the timeout', { hang: true } as const, 'That request took too long. Please try a simpler query.', 'TIMEOUT'],
    [
      'a broken connection',
      { destroy: true } as const,
      "I'm having trouble connecting to my AI service. Please try again.",
      'PROVIDER_UNAVAILABLE',
    ],
  ])('answers %s with its sentence, keeping the history consistent', async (what, answer, sentence, category) => {
    fake.respond(() => answer);
    const reply = await chat('what is on my list?');
    expect(reply).toMatchObject({ status: 'error', response: sentence, success: false, error: { message: sentence, category } });
    const [decision] = await sut.app
      .get(DataSource)
      .query<{ failure_class: string; provider_request_id: string | null }[]>(
        'SELECT failure_class, provider_request_id FROM decision_logs WHERE id = $1',
        [reply.decision.id],
      );
    expect(decision.failure_class).toEqual(expect.any(String));
    if (what === '500') expect(decision.provider_request_id).toBe('req_e2e_500');
  });

  it('answers a turn whose every try gets 500 with success false and the error, plain and streamed alike', async () => {
    const failed = { success: false, error: { message: TREATMENTS.PROVIDER_UNAVAILABLE.userSees, category: 'PROVIDER_UNAVAILABLE' } };
    fake.respond(() => ({ status: 500, json: { error: { message: 'boom' } } }));
    const plain = await chat('what is on my list?');
    expect(plain).toMatchObject({ status: 'error', response: failed.error.message, ...failed });
    // The first try and LLM_MAX_RETRIES (2) more.
    expect(fake.requests).toHaveLength(3);

    fake.respond(() => ({ status: 500, json: { error: { message: 'boom' } } }));
    const res = await streamChat(sut.http, user, { message: 'what is on my list?' }).expect(200);
    const events = parseSse(res.body as string);
    expect(events.map((event) => event.event).slice(-2)).toEqual(['error', 'done']);
    expect(events.at(-2)!.data).toEqual(failed.error);
    expect(events.at(-1)!.data).toMatchObject({ status: 'error', response: failed.error.message, ...failed });
    expect(fake.requests).toHaveLength(3);

    const [decision] = await sut.app
      .get(DataSource)
      .query<{ outcome_category: string; intent_type: string }[]>('SELECT outcome_category, intent_type FROM decision_logs WHERE id = $1', [
        plain.decision.id,
      ]);
    expect(decision).toEqual({ outcome_category: 'FAILED', intent_type: 'NONE' });
  });

  it("sends the request's own temperature and max tokens to the provider, and records them with the turn", async () => {
    fake.respond(addThenConfirm);
    const reply = await chat('add buy oat milk', { temperature: 0.35, maxTokens: 64 });
    expect(reply).toMatchObject({ status: 'completed', success: true });
    expect(fake.requests.map((r) => [r.body.temperature, r.body.max_tokens])).toEqual([
      [0.35, 64],
      [0.35, 64],
    ]);
    const [decision] = await sut.app
      .get(DataSource)
      .query<{ temperature: number; max_tokens: number; intent_type: string; outcome_category: string }[]>(
        'SELECT temperature, max_tokens, intent_type, outcome_category FROM decision_logs WHERE id = $1',
        [reply.decision.id],
      );
    expect(decision).toEqual({ temperature: 0.35, max_tokens: 64, intent_type: 'CREATE', outcome_category: 'SUCCEEDED' });
  });

  it.each([
    [{ temperature: 2.5 }, 'CHAT.INVALID_SAMPLING', 'temperature must be a number from 0 to 2'],
    [{ temperature: -1 }, 'CHAT.INVALID_SAMPLING', 'temperature must be a number from 0 to 2'],
    [{ maxTokens: 1025 }, 'CHAT.INVALID_SAMPLING', 'maxTokens must be a whole number from 1 to 1024'],
    [{ maxTokens: 0 }, 'CHAT.INVALID_SAMPLING', 'maxTokens must be a whole number from 1 to 1024'],
    [{ maxTokens: '64' }, 'VALIDATION.FAILED', 'maxTokens must be a whole number'],
    [{ temperature: '0.5' }, 'VALIDATION.FAILED', 'temperature must be a number'],
  ])('refuses %j with 400 naming the field, before anything is stored or sent', async (sampling, code, message) => {
    fake.respond(addThenConfirm);
    const res = await request(sut.http)
      .post(`/api/${user.userId}/chat`)
      .set(user.auth)
      .send({ message: 'add out of bounds', ...sampling });
    expect({ status: res.status, code: res.body.code, message: res.body.message }).toEqual({ status: 400, code, message });
    expect(fake.requests).toHaveLength(0);
    const [stored] = await sut.app
      .get(DataSource)
      .query<{ n: number }[]>(`SELECT count(*)::int AS n FROM messages WHERE content = 'add out of bounds'`);
    expect(stored.n).toBe(0);
  });

  it('recovers from 503 then 200 without the person noticing', async () => {
    fake.respond((req, i) => (i === 0 ? { status: 503, json: { error: { message: 'busy' } } } : addThenConfirm(req)));
    await expect(chat('add after outage')).resolves.toMatchObject({ status: 'completed' });
  });
});
