import request from 'supertest';
import { DataSource } from 'typeorm';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { chatCompletion, FakeProviderServer, type RecordedRequest, toolCall } from '../support/fake-provider-server';
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

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
  let db: TestDatabase;
  let sut: TestApp;
  let user: SignedInUser;

  beforeAll(async () => {
    fake = await FakeProviderServer.start();
    db = await createTestDatabase();
    sut = await startTestApp(db, {
      ...providerEnv(fake.url),
      LLM_TIMEOUT_MS: '1000',
      LLM_RETRY_MAX_WAIT_MS: '100',
      LLM_PRICE_INPUT_PER_1K: '0.5',
      LLM_PRICE_OUTPUT_PER_1K: '1.5',
    });
    user = await signUpAndIn(sut.http);
  });

  afterAll(async () => {
    await sut?.close();
    await db?.dispose();
    await fake?.stop();
  });

  async function chat(message: string) {
    const res = await request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send({ message }).expect(200);
    const reply = res.body as { conversationId: string; response: string; status: string; decision: { id: string } };
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
    expect(reply).toMatchObject({ response: "Got it! Added 'Buy milk' to your list.", status: 'completed' });
    const tasks = await request(sut.http).get(`/api/${user.userId}/tasks`).set(user.auth).expect(200);
    expect(tasks.body.map((t: { title: string }) => t.title)).toContain('Buy milk');

    expect(fake.requests).toHaveLength(2);
    const [first, second] = fake.requests.map((r) => r.body as { messages: Record<string, unknown>[]; tools: unknown[] });
    expect(first.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('task assistant') });
    expect(first.messages.at(-1)).toEqual({ role: 'user', content: 'please add buy milk' });
    expect(first.tools).toHaveLength(5);
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
    expect(decision).toMatchObject({ model: 'gpt-test', prompt_tokens: 84, completion_tokens: 14, cost: '0.063000' });
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
    ],
    [
      '500',
      { status: 500, headers: { 'x-request-id': 'req_e2e_500' }, json: { error: { message: 'boom' } } },
      "I'm having trouble connecting to my AI service. Please try again.",
    ],
    ['a hang past the timeout', { hang: true } as const, 'That request took too long. Please try a simpler query.'],
    ['a broken connection', { destroy: true } as const, "I'm having trouble connecting to my AI service. Please try again."],
  ])('answers %s with its sentence, keeping the history consistent', async (what, answer, sentence) => {
    fake.respond(() => answer);
    const reply = await chat('what is on my list?');
    expect(reply).toMatchObject({ status: 'error', response: sentence });
    const [decision] = await sut.app
      .get(DataSource)
      .query<{ failure_class: string; provider_request_id: string | null }[]>(
        'SELECT failure_class, provider_request_id FROM decision_logs WHERE id = $1',
        [reply.decision.id],
      );
    expect(decision.failure_class).toEqual(expect.any(String));
    if (what === '500') expect(decision.provider_request_id).toBe('req_e2e_500');
  });

  it('recovers from 503 then 200 without the person noticing', async () => {
    fake.respond((req, i) => (i === 0 ? { status: 503, json: { error: { message: 'busy' } } } : addThenConfirm(req)));
    await expect(chat('add after outage')).resolves.toMatchObject({ status: 'completed' });
  });
});
