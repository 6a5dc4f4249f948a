import request from 'supertest';
import { FakeProviderServer, geminiResponse, type RecordedRequest } from '../support/fake-provider-server';
import { useTestApp } from '../support/test-app';

type GeminiContent = { role: string; parts: { text?: string; functionResponse?: { name: string; response: unknown } }[] };

/** Acts like Gemini: call add_task, then answer once the function response comes back. */
function addThenConfirm(req: RecordedRequest) {
  const contents = req.body.contents as GeminiContent[];
  const last = contents[contents.length - 1];
  if (last.parts.some((part) => part.functionResponse))
    return { json: geminiResponse([{ text: "Got it! Added 'Call the bank' to your list." }]) };
  return { json: geminiResponse([{ functionCall: { name: 'add_task', args: { title: 'Call the bank' } } }]) };
}

describe('chat on LLM_PROVIDER=gemini (a local server speaking its wire format)', () => {
  let fake: FakeProviderServer;
  beforeAll(async () => {
    fake = await FakeProviderServer.start();
  });
  const sut = useTestApp({
    env: () => ({
      LLM_PROVIDER: 'gemini',
      GEMINI_API_KEY: 'AIza-e2e-not-a-real-key',
      GEMINI_MODEL: 'gemini-test',
      GEMINI_BASE_URL: fake.url,
      LLM_TIMEOUT_MS: '1000',
    }),
  });
  const user = sut.user();
  afterAll(() => fake?.stop());

  const chat = (message: string, sampling: { temperature?: number; maxTokens?: number } = {}) =>
    request(sut.http)
      .post(`/api/${user.userId}/chat`)
      .set(user.auth)
      .send({ message, ...sampling })
      .expect(200);
  const generationConfigs = () =>
    fake.requests.map((r) => {
      const config = r.body.generationConfig as { temperature?: number; maxOutputTokens?: number };
      return [config.temperature, config.maxOutputTokens];
    });

  it('runs a tool loop through Gemini function calling', async () => {
    fake.respond(addThenConfirm);
    const reply = await chat('add call the bank');
    expect(reply.body).toMatchObject({ response: "Got it! Added 'Call the bank' to your list.", status: 'completed' });
    const tasks = await request(sut.http).get(`/api/${user.userId}/tasks`).set(user.auth).expect(200);
    expect(tasks.body.map((t: { title: string }) => t.title)).toEqual(['Call the bank']);

    // The server's own sampling (LLM_TEMPERATURE, LLM_MAX_TOKENS) when the request sets none.
    expect(generationConfigs()).toEqual([
      [0, 1024],
      [0, 1024],
    ]);
    const second = fake.requests[1].body as { contents: GeminiContent[]; systemInstruction: unknown };
    expect(second.systemInstruction).toMatchObject({ parts: [{ text: expect.stringContaining('task assistant') }] });
    expect(second.contents.at(-1)).toMatchObject({
      role: 'user',
      parts: [{ functionResponse: { name: 'add_task', response: { task: expect.objectContaining({ title: 'Call the bank' }) } } }],
    });
  });

  it('turns a lasting 429 into the high-demand sentence', async () => {
    fake.respond(() => ({ status: 429, json: { error: { code: 429, message: 'quota', status: 'RESOURCE_EXHAUSTED' } } }));
    const reply = await chat('what is left?');
    expect(reply.body).toMatchObject({
      status: 'error',
      response: "I'm currently experiencing high demand. Please try again in a moment.",
      success: false,
      error: { message: "I'm currently experiencing high demand. Please try again in a moment.", category: 'RATE_LIMITED' },
    });
  });

  it("sends the request's own temperature and max tokens as Gemini's generation config, within the server's bounds", async () => {
    fake.respond(addThenConfirm);
    const reply = await chat('add call the bank again', { temperature: 1.25, maxTokens: 100 });
    expect(reply.body).toMatchObject({ status: 'completed', success: true, error: null });
    expect(generationConfigs()).toEqual([
      [1.25, 100],
      [1.25, 100],
    ]);

    const refused = await request(sut.http)
      .post(`/api/${user.userId}/chat`)
      .set(user.auth)
      .send({ message: 'add too long', maxTokens: 4096 });
    expect({ status: refused.status, code: refused.body.code, message: refused.body.message }).toEqual({
      status: 400,
      code: 'CHAT.INVALID_SAMPLING',
      message: 'maxTokens must be a whole number from 1 to 1024',
    });
    expect(fake.requests).toHaveLength(2);
  });
});
