import request from 'supertest';
import { DataSource } from 'typeorm';
import { chatCompletion, FakeProviderServer, toolCall } from '../support/fake-provider-server';
import { captureStdout } from '../support/log-capture';
import { signUpAndIn } from '../support/accounts';
import { useTestApp } from '../support/test-app';

describe('what the logs hold', () => {
  let stdout: ReturnType<typeof captureStdout>;
  beforeAll(() => {
    stdout = captureStdout();
  });
  const sut = useTestApp({ env: { LOG_LEVEL: 'info', SUPPORT_CONTACT: 'help@bridle.example' } });
  const me = sut.user();
  afterAll(() => stdout?.restore());

  it('logs requests, with a credential in the query string masked', async () => {
    // Refused (an unknown query field), and logged all the same.
    await request(sut.http).get(`/api/${me.userId}/tasks?status=pending&access_token=${me.token}`).set(me.auth).expect(400);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const line = stdout
      .text()
      .split('\n')
      .find((entry) => entry.includes('"statusCode":400') && entry.includes('status=pending'));
    expect(line).toContain('access_token=[REDACTED]');
    expect(stdout.text()).not.toContain(me.token);
  });

  it('logs a password change, refused or not, and neither password', async () => {
    const ada = await signUpAndIn(sut.http);
    const newPassword = 'new-password-7f3a91c2';
    const wrongPassword = 'wrong-password-c81e44d0';
    const change = (body: object) => request(sut.http).post('/auth/password').set(ada.auth).send(body);
    await change({ currentPassword: wrongPassword, newPassword }).expect(401);
    await change({ currentPassword: 'correct horse battery', newPassword: 'short' }).expect(400);
    await change({ currentPassword: 'correct horse battery', newPassword }).expect(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // One line per request as it ends (another for a 4xx that an error filter answered is allowed).
    const statuses = stdout
      .text()
      .split('\n')
      .filter((entry) => entry.includes('/auth/password'))
      .map((entry) => (JSON.parse(entry) as { res?: { statusCode: number } }).res?.statusCode)
      .filter((status) => status !== undefined);
    expect(statuses).toEqual([401, 400, 200]);
    for (const password of [newPassword, wrongPassword, 'correct horse battery']) expect(stdout.text()).not.toContain(password);
  });

  it('logs an unexpected error as its class, code and message, never the query parameters', async () => {
    // A database that refuses this one message: the turn fails in SQL holding the text.
    await sut.app.get(DataSource).query(`ALTER TABLE messages ADD CONSTRAINT refuse_hunter CHECK (content NOT LIKE '%hunter2%')`);
    const res = await request(sut.http)
      .post(`/api/${me.userId}/chat`)
      .set(me.auth)
      .send({ message: 'remember my password hunter2-secret' });
    expect(res.status).toBe(500);
    // The person is told only that, and where to get help; the log line has the rest.
    expect(res.body).toEqual({
      statusCode: 500,
      code: 'INTERNAL',
      message: 'An unexpected error occurred. Please try again, or contact support at help@bridle.example if it keeps happening.',
      correlationId: expect.any(String),
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const line = stdout
      .text()
      .split('\n')
      .find((entry) => entry.includes('request failed'));
    expect(JSON.parse(line!)).toMatchObject({
      err: { type: 'QueryFailedError', code: '23514', message: expect.stringContaining('refuse_hunter') },
      path: `/api/${me.userId}/chat`,
    });
    expect(stdout.text()).not.toContain('hunter2-secret');
  });
});

describe('what a chat turn logs (a local server speaking OpenAI)', () => {
  let fake: FakeProviderServer;
  let stdout: ReturnType<typeof captureStdout>;
  beforeAll(async () => {
    fake = await FakeProviderServer.start();
    stdout = captureStdout();
  });
  const sut = useTestApp({ env: () => ({ LOG_LEVEL: 'info', ...fake.openAiEnv }) });
  const me = sut.user();
  afterAll(async () => {
    stdout?.restore();
    await fake?.stop();
  });

  const lines = () =>
    stdout
      .text()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it('one INFO line per model call and per tool call, naming the decision', async () => {
    fake.respond((req) =>
      (req.body.messages as { role: string }[]).at(-1)?.role === 'tool'
        ? { json: chatCompletion({ content: "Got it! Added 'Buy milk' to your list." }) }
        : { json: chatCompletion({ tool_calls: [toolCall('call_1', 'add_task', '{"title":"Buy milk"}')] }, 'tool_calls') },
    );
    const res = await request(sut.http).post(`/api/${me.userId}/chat`).set(me.auth).send({ message: 'add buy milk' }).expect(200);
    const mine = lines().filter((line) => line.decisionId === res.body.decision.id);
    expect(mine.filter((line) => line.msg === 'model call').map((line) => [line.level, line.iteration, line.finishReason])).toEqual([
      [30, 1, 'tool_calls'],
      [30, 2, 'stop'],
    ]);
    expect(mine.filter((line) => line.msg === 'tool call').map((line) => [line.level, line.tool, line.success])).toEqual([
      [30, 'add_task', true],
    ]);
  });

  it('a provider 5xx at ERROR, with its failure class and the provider request id', async () => {
    fake.respond(() => ({ status: 503, headers: { 'x-request-id': 'req_upstream_42' }, json: { error: { message: 'overloaded' } } }));
    const res = await request(sut.http).post(`/api/${me.userId}/chat`).set(me.auth).send({ message: 'add buy bread' }).expect(200);
    expect(res.body).toMatchObject({ status: 'error', finishReason: 'error' });
    const failed = lines().find((line) => line.decisionId === res.body.decision.id && line.msg === 'model call failed');
    expect(failed).toMatchObject({
      level: 50,
      failureClass: 'PROVIDER_UNAVAILABLE',
      providerRequestId: 'req_upstream_42',
      provider: 'openai',
    });
  });
});
