import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { randomUUID } from 'node:crypto';
import { parseSse, streamChat } from '../support/chat-stream';
import { useTestApp } from '../support/test-app';
import { answeringToolResult, callTool, say, ScriptedLanguageModel } from '../fakes/scripted-language-model';

describe('POST /api/:userId/chat/stream (offline model)', () => {
  const sut = useTestApp();
  const user = sut.user();

  const stream = (body: object) => streamChat(sut.http, user, body);

  it('streams tool_call, tool_result, the answer in deltas, then done with the plain body', async () => {
    const res = await stream({ message: 'add buy milk' }).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = parseSse(res.body as string);
    const names = events.map((e) => e.event);
    expect(names[0]).toBe('tool_call');
    expect(names[1]).toBe('tool_result');
    expect(names.at(-1)).toBe('done');
    expect(new Set(names.slice(2, -1))).toEqual(new Set(['delta']));
    expect(events[0].data).toEqual({ tool: 'add_task', arguments: { title: 'Buy milk' } });
    expect(events[1].data).toMatchObject({ tool: 'add_task', success: true, result: { task: { number: 1, title: 'Buy milk' } } });
    const text = events
      .filter((e) => e.event === 'delta')
      .map((e) => e.data.text)
      .join('');
    expect(text).toBe("Got it! Added 'Buy milk' to your list. Anything else?");
    expect(events.at(-1)!.data).toMatchObject({
      conversationId: expect.any(String),
      response: text,
      decision: { type: 'INVOKE_TOOL', id: expect.any(String) },
      toolCalls: [expect.objectContaining({ tool: 'add_task', success: true })],
      status: 'completed',
    });
  });

  it('announces a confirmation before done', async () => {
    const res = await stream({ message: 'delete task 1' }).expect(200);
    const names = parseSse(res.body as string).map((e) => e.event);
    expect(names.slice(0, 2)).toEqual(['tool_call', 'tool_result']);
    expect(names.slice(-2)).toEqual(['confirmation_required', 'done']);
  });

  it('answers an unknown conversation with an ordinary 404 before any event', async () => {
    const res = await request(sut.http)
      .post(`/api/${user.userId}/chat/stream`)
      .set(user.auth)
      .send({ message: 'hi', conversationId: randomUUID() });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'CHAT.CONVERSATION_NOT_FOUND' });
  });
});

describe('a client that disconnects mid-stream', () => {
  const model = new ScriptedLanguageModel();
  // Adds a task at once, then takes its time to word the answer.
  model.use(async (req) => {
    if (!answeringToolResult(req)) return callTool('add_task', { title: 'Slow one' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    return say('Added it.');
  });
  const sut = useTestApp({ languageModel: model });
  const user = sut.user();

  async function rowsOf(conversationId: string) {
    const ds = sut.app.get(DataSource);
    const messages = await ds.query<{ role: string; content: string }[]>(
      'SELECT role, content FROM messages WHERE conversation_id = $1 ORDER BY seq',
      [conversationId],
    );
    const decisions = await ds.query<{ decision_type: string; status: string }[]>(
      'SELECT decision_type, status FROM decision_logs WHERE conversation_id = $1',
      [conversationId],
    );
    const audit = await ds.query<{ tool: string; status: string }[]>(
      'SELECT tool, status FROM audit_log WHERE conversation_id = $1 ORDER BY seq',
      [conversationId],
    );
    return { messages, decisions, audit };
  }

  it('leaves the same rows as a completed plain request', async () => {
    const plain = await request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send({ message: 'add slow one' }).expect(200);
    const expected = await rowsOf((plain.body as { conversationId: string }).conversationId);

    const { port } = new URL(sut.http);
    const firstEvent = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: `/api/${user.userId}/chat/stream`,
          headers: { ...user.auth, 'content-type': 'application/json' },
        },
        (res) => {
          res.once('data', (chunk: Buffer) => {
            req.destroy();
            resolve(chunk.toString());
          });
        },
      );
      req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
      req.end(JSON.stringify({ message: 'add slow one' }));
    });
    expect(firstEvent).toContain('event: tool_call');

    const ds = sut.app.get(DataSource);
    let conversationId: string | undefined;
    // The turn is over when its decision is no longer pending (completed in the statement that stores its answer).
    for (let i = 0; i < 50 && !conversationId; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const rows = await ds.query<{ conversation_id: string }[]>(
        `SELECT conversation_id FROM decision_logs WHERE conversation_id <> $1 AND status <> 'pending' ORDER BY created_at DESC LIMIT 1`,
        [(plain.body as { conversationId: string }).conversationId],
      );
      conversationId = rows[0]?.conversation_id;
    }
    expect(conversationId).toBeDefined();
    expect(await rowsOf(conversationId!)).toEqual(expected);
    expect(expected.audit).toEqual([
      { tool: 'add_task', status: 'pending' },
      { tool: 'add_task', status: 'succeeded' },
    ]);
  });
});

describe('a streamed turn that reaches the iteration limit', () => {
  const model = new ScriptedLanguageModel();
  // Loops on a tool for as long as tools are offered; words what it found when they are not.
  model.use((req) =>
    req.tools.length === 0
      ? say(`I listed your tasks ${req.messages.filter((m) => m.role === 'tool').length} times: your list is empty.`)
      : callTool('list_tasks', { status: 'all' }),
  );
  const sut = useTestApp({ languageModel: model });
  const user = sut.user();

  it('streams the answer worded from the results, and done carries the status, finishReason and warning', async () => {
    const res = await streamChat(sut.http, user, { message: 'keep listing' }).expect(200);
    const events = parseSse(res.body as string);
    expect(events.filter((e) => e.event === 'tool_result')).toHaveLength(5);
    const done = events.at(-1)!;
    expect(done).toMatchObject({
      event: 'done',
      data: {
        status: 'max_iterations_reached',
        finishReason: 'max_iterations',
        warning: 'I reached the limit of steps for one request, so this answer may be incomplete.',
        response: 'I listed your tasks 5 times: your list is empty.',
      },
    });
    const deltas = events.filter((e) => e.event === 'delta').map((e) => e.data.text as string);
    expect(deltas.join('')).toBe(done.data.response);
  });
});
