import request from 'supertest';
import { DataSource } from 'typeorm';
import { parseSse, streamChat } from '../support/chat-stream';
import {
  chatChunk,
  chatCompletion,
  FakeProviderServer,
  finishChunk,
  openAiStream,
  type RecordedRequest,
  textChunk,
  usageChunk,
} from '../support/fake-provider-server';
import { useTestApp } from '../support/test-app';

/**
 * OpenAI-compatible servers that bend the wire format, with the real SDK as the client:
 * `tool_calls[].function.arguments` is a JSON string by the book, but some send the object
 * itself, or null. An object is taken as that object; anything else is a refused call that
 * the model is told about and the audit log records, and never a 500.
 */

/** The last message the model was sent. */
const lastMessage = (req: RecordedRequest) => (req.body.messages as { role: string; content: string }[]).at(-1)!;

/**
 * First call: add_task with `args` as the server puts them on the wire (whatever JSON value);
 * once the model has the tool's result, it answers in words. Plain or streamed, as asked.
 */
function addTaskWith(args: unknown, answer: string) {
  return (req: RecordedRequest) => {
    const answering = lastMessage(req).role === 'tool';
    if (req.body.stream === true) {
      return answering
        ? openAiStream([textChunk(answer), finishChunk('stop'), usageChunk()])
        : openAiStream([
            chatChunk({ tool_calls: [{ index: 0, id: 'call_q', type: 'function', function: { name: 'add_task', arguments: args } }] }),
            finishChunk('tool_calls'),
            usageChunk(),
          ]);
    }
    return answering
      ? { json: chatCompletion({ content: answer }) }
      : {
          json: chatCompletion(
            { tool_calls: [{ id: 'call_q', type: 'function', function: { name: 'add_task', arguments: args } }] },
            'tool_calls',
          ),
        };
  };
}

describe('an OpenAI-compatible server that sends tool-call arguments as an object or null', () => {
  let fake: FakeProviderServer;
  /** The status of every chat request the tests make. */
  const statuses: number[] = [];

  beforeAll(async () => {
    fake = await FakeProviderServer.start();
  });
  afterAll(() => {
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
  });
  const sut = useTestApp({ env: () => fake.openAiEnv });
  const user = sut.user();
  afterAll(() => fake?.stop());

  interface Turn {
    response: string;
    toolCalls: { tool: string; arguments: unknown; success: boolean; error?: { code: string; message: string } }[];
  }

  async function plain(message: string): Promise<Turn> {
    const res = await request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send({ message });
    statuses.push(res.status);
    expect(res.status).toBe(200);
    return res.body as Turn;
  }

  async function streamed(message: string): Promise<Turn> {
    const res = await streamChat(sut.http, user, { message });
    statuses.push(res.status);
    expect(res.status).toBe(200);
    const events = parseSse(res.body as string);
    expect(events.map((e) => e.event)).not.toContain('error');
    return events.at(-1)!.data as unknown as Turn;
  }

  const titles = async () => {
    const res = await request(sut.http).get(`/api/${user.userId}/tasks`).set(user.auth).expect(200);
    return (res.body as { title: string }[]).map((task) => task.title);
  };

  const lastAudit = async () =>
    (
      await sut.app
        .get(DataSource)
        .query<{ tool: string; status: string; error_code: string | null }[]>(
          `SELECT tool, status, error_code FROM audit_log WHERE source = 'chat' ORDER BY seq DESC LIMIT 1`,
        )
    )[0];

  describe.each([
    ['plain', plain],
    ['streamed', streamed],
  ])('%s', (mode, turn) => {
    it('runs a call whose arguments are an object, as that object', async () => {
      const title = `Quirky object ${mode}`;
      fake.respond(addTaskWith({ title }, `Added '${title}' to your list.`));
      const reply = await turn(`add ${title}`);
      expect(reply.toolCalls).toEqual([expect.objectContaining({ tool: 'add_task', arguments: { title }, success: true })]);
      expect(reply.response).toBe(`Added '${title}' to your list.`);
      expect(await titles()).toContain(title);
      expect(await lastAudit()).toMatchObject({ tool: 'add_task', status: 'succeeded' });
    });

    it.each([
      ['null', null, 'must be a JSON object, not null'],
      ['an array', [{ title: 'Milk' }], 'must be a JSON object, not an array'],
      ['a number', 42, 'must be a JSON object, not a number'],
      ['a JSON string', '"Milk"', 'must be a JSON object, not a string'],
      ['text that is not JSON', 'title=Milk', 'not valid JSON'],
    ])('refuses a call whose arguments are %s, and tells the model how', async (_, args, told) => {
      const before = await titles();
      fake.respond(addTaskWith(args, "Sorry, I couldn't add that."));
      const reply = await turn('add milk');
      expect(reply.response).toBe("Sorry, I couldn't add that.");
      expect(reply.toolCalls).toEqual([
        expect.objectContaining({
          tool: 'add_task',
          success: false,
          error: expect.objectContaining({ code: args === 'title=Milk' ? 'MALFORMED_ARGUMENTS' : 'INVALID_ARGUMENTS' }),
        }),
      ]);
      // The tool result the model read says what was wrong and what to send.
      const toolResult = lastMessage(fake.requests[1]);
      expect(toolResult.role).toBe('tool');
      expect(toolResult.content).toContain(told);
      expect(toolResult.content).toContain('Send one JSON object');
      expect(await lastAudit()).toMatchObject({ tool: 'add_task', status: 'rejected' });
      expect(await titles()).toEqual(before);
    });
  });

  it('streamed: a name-only delta with null arguments, then the arguments in pieces, is one call', async () => {
    fake.respond((req) =>
      lastMessage(req).role === 'tool'
        ? openAiStream([textChunk("Added 'Pieces' to your list."), finishChunk('stop'), usageChunk()])
        : openAiStream([
            chatChunk({ tool_calls: [{ index: 0, id: 'call_p', type: 'function', function: { name: 'add_task', arguments: null } }] }),
            chatChunk({ tool_calls: [{ index: 0, function: { arguments: '{"title":' } }] }),
            chatChunk({ tool_calls: [{ index: 0, function: { arguments: '"Pieces"}' } }] }),
            finishChunk('tool_calls'),
            usageChunk(),
          ]),
    );
    const reply = await streamed('add pieces');
    expect(reply.toolCalls).toEqual([expect.objectContaining({ tool: 'add_task', arguments: { title: 'Pieces' }, success: true })]);
    expect(await titles()).toContain('Pieces');
  });

  /** One plain tool call shaped as given, then words once the model has the tool's result. */
  const plainCall = (call: Record<string, unknown>, answer: string) => (req: RecordedRequest) =>
    lastMessage(req).role === 'tool'
      ? { json: chatCompletion({ content: answer }) }
      : { json: chatCompletion({ tool_calls: [{ id: 'call_t', ...call }] }, 'tool_calls') };

  it('plain: runs a call that leaves out its type, as a function call', async () => {
    fake.respond(plainCall({ function: { name: 'add_task', arguments: '{"title":"Untyped"}' } }, "Added 'Untyped' to your list."));
    const reply = await plain('add untyped');
    expect(reply.toolCalls).toEqual([expect.objectContaining({ tool: 'add_task', arguments: { title: 'Untyped' }, success: true })]);
    expect(await titles()).toContain('Untyped');
  });

  it.each([
    ['a number', 42],
    ['an object', { name: 'add_task' }],
    ['null', null],
  ])('plain: refuses a call whose tool name is %s as an unknown tool, never a 500', async (_, name) => {
    const before = await titles();
    fake.respond(plainCall({ type: 'function', function: { name, arguments: '{"title":"Nameless"}' } }, 'Sorry.'));
    const reply = await plain('add nameless');
    expect(reply.toolCalls).toEqual([expect.objectContaining({ success: false })]);
    expect(await titles()).toEqual(before);
  });
});
