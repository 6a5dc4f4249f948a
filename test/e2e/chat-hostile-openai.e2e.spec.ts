import request from 'supertest';
import { DataSource } from 'typeorm';
import { chatCompletion, FakeProviderServer, type RecordedRequest, toolCall } from '../support/fake-provider-server';
import { captureStdout } from '../support/log-capture';
import { useTestApp } from '../support/test-app';

/**
 * A hostile model behind a local server speaking OpenAI's wire format, with the real SDK as
 * the client: what it writes may be refused, cut or recorded, but never stored or logged
 * with a secret in it, never unbounded, and never a 500.
 */
const SECRETS = ['hunter2-refused', 'hunter2-broken', 'hunter2-accepted', 'hunter2-nul'];

/** The first model call asks for `call`; once it has a tool result, it answers `answer`. */
function oneCallThenAnswer(name: string, args: string, answer = 'Done.') {
  return (req: RecordedRequest) => {
    const messages = req.body.messages as { role: string }[];
    if (messages[messages.length - 1].role === 'tool') return { json: chatCompletion({ content: answer }) };
    return { json: chatCompletion({ tool_calls: [toolCall('call_1', name, args)] }, 'tool_calls') };
  };
}

describe('a hostile model over the OpenAI wire format', () => {
  let fake: FakeProviderServer;
  let stdout: ReturnType<typeof captureStdout>;
  beforeAll(async () => {
    fake = await FakeProviderServer.start();
    stdout = captureStdout();
  });
  const sut = useTestApp({ env: () => ({ LOG_LEVEL: 'debug', ...fake.openAiEnv }) });
  const user = sut.user();
  const admin = sut.user({ admin: true });
  afterAll(async () => {
    stdout?.restore();
    await fake?.stop();
  });

  async function chat(message: string) {
    const res = await request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send({ message });
    expect(res.status).toBe(200);
    return res.body as {
      conversationId: string;
      response: string;
      status: string;
      toolCalls: { tool: string; arguments: unknown; success: boolean; error?: { code: string } }[];
    };
  }

  async function storedMessages(conversationId: string) {
    const res = await request(sut.http).get(`/api/${user.userId}/conversations/${conversationId}/messages`).set(user.auth).expect(200);
    return (res.body as { items: { role: string; content: string; toolCalls: unknown[] }[] }).items;
  }

  const auditRows = () =>
    sut.app
      .get(DataSource)
      .query<{ tool: string; arguments: unknown; status: string; error_code: string | null }[]>(
        `SELECT tool, arguments, status, error_code FROM audit_log WHERE source = 'chat' ORDER BY seq`,
      );

  it('records a refused call with a secret argument masked', async () => {
    fake.respond(oneCallThenAnswer('add_task', '{"title":"x","password":"hunter2-refused"}', 'I could not add that.'));
    const reply = await chat('add x');
    expect(reply.toolCalls).toEqual([
      expect.objectContaining({ tool: 'add_task', success: false, error: expect.objectContaining({ code: 'INVALID_ARGUMENTS' }) }),
    ]);
    expect(reply.toolCalls[0].arguments).toEqual({ title: 'x', password: 'hunter2-refused' });
    expect((await auditRows()).at(-1)).toMatchObject({
      tool: 'add_task',
      status: 'rejected',
      arguments: { title: 'x', password: '[REDACTED]' },
    });
  });

  it('records broken JSON arguments as text with the secret masked', async () => {
    fake.respond(oneCallThenAnswer('add_task', '{"title":"x","password":"hunter2-broken"', 'That went wrong.'));
    await chat('add x again');
    expect((await auditRows()).at(-1)).toMatchObject({
      status: 'rejected',
      error_code: 'MALFORMED_ARGUMENTS',
      arguments: '{"title":"x","password":"[REDACTED]"',
    });
  });

  it('masks a secret in the text of accepted arguments', async () => {
    fake.respond(oneCallThenAnswer('add_task', '{"title":"Bank","description":"password: hunter2-accepted"}', "Added 'Bank'."));
    const reply = await chat('add bank with my password');
    expect(reply.toolCalls[0]).toMatchObject({ success: true });
    const rows = await auditRows();
    expect(rows.slice(-2).map((row) => row.status)).toEqual(['pending', 'succeeded']);
    expect(rows.at(-1)!.arguments).toEqual({ title: 'Bank', description: 'password: [REDACTED]' });
  });

  it('refuses a NUL byte in arguments as a tool error, not a 500', async () => {
    fake.respond(oneCallThenAnswer('add_task', '{"title":"a\\u0000b","description":"password=hunter2-nul"}', 'I could not add that.'));
    const reply = await chat('add a NUL');
    expect(reply.toolCalls[0]).toMatchObject({ success: false, error: { code: 'INVALID_ARGUMENTS' } });
    expect(reply.response).toBe('I could not add that.');
  });

  it.each([
    ['a NUL byte', 'add_task\u0000', 'add_task\uFFFD'],
    ['300 characters', 'x'.repeat(300), `${'x'.repeat(42)}[… 258 characters cut]`],
  ])('answers the person when the model names a tool with %s, recording the name bounded', async (_, name, recorded) => {
    fake.respond(oneCallThenAnswer(name, '{}', 'Sorry, I could not do that.'));
    const reply = await chat(`use a tool with ${name.length} characters`);
    expect(reply.response).toBe('Sorry, I could not do that.');
    expect(reply.toolCalls).toEqual([
      expect.objectContaining({ tool: recorded, success: false, error: expect.objectContaining({ code: 'UNKNOWN_TOOL' }) }),
    ]);
    expect((await auditRows()).at(-1)).toMatchObject({ tool: recorded, status: 'rejected', error_code: 'UNKNOWN_TOOL' });
    const history = await storedMessages(reply.conversationId);
    expect(history.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it('refuses a 1 MB argument, keeping only its size and hash', async () => {
    const huge = JSON.stringify({ title: 'x', description: 'y'.repeat(1024 * 1024) });
    fake.respond(oneCallThenAnswer('add_task', huge, 'That was too much.'));
    const reply = await chat('add something huge');
    expect(reply.toolCalls[0]).toMatchObject({ success: false, error: { code: 'ARGUMENTS_TOO_LARGE' } });
    expect(reply.toolCalls[0].arguments).toEqual({
      omitted: 'too large',
      bytes: Buffer.byteLength(huge),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect((await auditRows()).at(-1)).toMatchObject({
      error_code: 'ARGUMENTS_TOO_LARGE',
      arguments: { omitted: 'too large', bytes: Buffer.byteLength(huge) },
    });
    const stored = await sut.app
      .get(DataSource)
      .query<{ bytes: number }[]>(`SELECT max(octet_length(tool_calls::text)) AS bytes FROM messages`);
    expect(Number(stored[0].bytes)).toBeLessThan(16 * 1024);
  });

  it('cuts a 10 MB answer to the reply bound (AGENT_MAX_REPLY_CHARS), with a marker and a warning', async () => {
    fake.respond(() => ({ json: chatCompletion({ content: 'z'.repeat(10 * 1024 * 1024) }) }));
    const reply = await chat('say a lot');
    expect(reply.response).toBe(`${'z'.repeat(498)} …`);
    expect(reply).toMatchObject({ finishReason: 'stop', warning: 'The answer was shortened.' });
    const history = await storedMessages(reply.conversationId);
    expect(history.at(-1)!.content).toBe(reply.response);
  });

  it('lets no secret reach an audit row, the export, a stored message or a log line', async () => {
    const exported = await request(sut.http).get('/admin/audit-logs/export').set(admin.auth).expect(200);
    const rows = JSON.stringify(await auditRows());
    const messages = JSON.stringify(await sut.app.get(DataSource).query(`SELECT content, tool_calls FROM messages`));
    for (const secret of SECRETS) {
      expect(exported.text).not.toContain(secret);
      expect(rows).not.toContain(secret);
      expect(stdout.text()).not.toContain(secret);
    }
    // The refused call's secret is masked in the stored conversation too.
    expect(messages).not.toContain('hunter2-refused');
    expect(messages).not.toContain('hunter2-broken');
  });
});
