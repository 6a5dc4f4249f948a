import request from 'supertest';
import { parseSse, streamChat } from '../support/chat-stream';
import {
  chatChunk,
  chatCompletion,
  FakeProviderServer,
  finishChunk,
  geminiResponse,
  geminiStream,
  openAiStream,
  type RecordedRequest,
  textChunk,
  usageChunk,
} from '../support/fake-provider-server';
import { useTestApp } from '../support/test-app';

/**
 * A provider's tool-call id only pairs a call with its result. Missing, null, a number, an
 * object, empty, or the same for two calls: the call runs under an id of Bridle's own
 * (providerToolCalls), the result goes back under that id, and the turn answers 200 or ends
 * its stream with done, never a 500 or the stream's "unexpected error". Both SDKs are real.
 */
const ODD_IDS: readonly [string, unknown][] = [
  ['missing', undefined],
  ['null', null],
  ['0', 0],
  ['7', 7],
  ['an object', { id: 'call_1' }],
  ['empty', ''],
  ['a line break', 'call\n1'],
];

interface Turn {
  response: string;
  status: string;
  toolCalls: { tool: string; success: boolean }[];
}

const present = (fields: Record<string, unknown>) => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));

describe.each([
  ['openai', 'plain'],
  ['openai', 'streamed'],
  ['gemini', 'plain'],
  ['gemini', 'streamed'],
] as const)('tool-call ids of odd shapes from %s, %s', (provider, mode) => {
  let fake: FakeProviderServer;
  const statuses: number[] = [];
  beforeAll(async () => {
    fake = await FakeProviderServer.start();
  });
  afterAll(() => {
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
  });
  const sut = useTestApp({
    env: () =>
      provider === 'openai'
        ? fake.openAiEnv
        : { LLM_PROVIDER: 'gemini', GEMINI_API_KEY: 'AIza-not-a-real-key', GEMINI_MODEL: 'gemini-test', GEMINI_BASE_URL: fake.url },
  });
  const user = sut.user();
  afterAll(() => fake?.stop());

  /** Two add_task calls with these ids, then words once the model has both results. */
  function twoCalls(ids: readonly [unknown, unknown], titles: readonly [string, string]) {
    return (req: RecordedRequest) => {
      const streamed = req.body.stream === true || req.url.includes(':streamGenerateContent');
      if (provider === 'openai') {
        const answering = (req.body.messages as { role: string }[]).at(-1)!.role === 'tool';
        const calls = ids.map((id, i) =>
          present({ id, type: 'function', function: { name: 'add_task', arguments: JSON.stringify({ title: titles[i] }) } }),
        );
        if (answering)
          return streamed
            ? openAiStream([textChunk('Added both.'), finishChunk('stop'), usageChunk()])
            : { json: chatCompletion({ content: 'Added both.' }) };
        return streamed
          ? openAiStream([
              chatChunk({ tool_calls: calls.map((call, index) => ({ index, ...call })) }),
              finishChunk('tool_calls'),
              usageChunk(),
            ])
          : { json: chatCompletion({ tool_calls: calls }, 'tool_calls') };
      }
      const answering = (req.body.contents as { parts: { functionResponse?: unknown }[] }[]).at(-1)!.parts.some((p) => p.functionResponse);
      const body = answering
        ? geminiResponse([{ text: 'Added both.' }])
        : geminiResponse(ids.map((id, i) => ({ functionCall: present({ id, name: 'add_task', args: { title: titles[i] } }) })));
      return streamed ? geminiStream([body]) : { json: body };
    };
  }

  async function turn(message: string): Promise<Turn> {
    if (mode === 'plain') {
      const res = await request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send({ message });
      statuses.push(res.status);
      expect(res.status).toBe(200);
      return res.body as Turn;
    }
    const res = await streamChat(sut.http, user, { message });
    statuses.push(res.status);
    expect(res.status).toBe(200);
    const events = parseSse(res.body as string);
    expect(events.map((event) => event.event)).not.toContain('error');
    expect(events.at(-1)!.event).toBe('done');
    return events.at(-1)!.data as unknown as Turn;
  }

  /** The results sent back answer the calls of the message before them, under the ids that message gave them. */
  function expectResultsPaired(answering: RecordedRequest): void {
    if (provider === 'openai') {
      const messages = answering.body.messages as { role: string; tool_calls?: { id: string }[]; tool_call_id?: string }[];
      const ids = messages.findLast((message) => message.role === 'assistant')!.tool_calls!.map((call) => call.id);
      expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
      expect(new Set(ids).size).toBe(2);
      expect(messages.filter((message) => message.role === 'tool').map((message) => message.tool_call_id)).toEqual(ids);
    } else {
      const contents = answering.body.contents as { parts: { functionCall?: { id: string }; functionResponse?: { id: string } }[] }[];
      const ids = contents.at(-2)!.parts.map((part) => part.functionCall!.id);
      expect(new Set(ids).size).toBe(2);
      expect(contents.at(-1)!.parts.map((part) => part.functionResponse!.id)).toEqual(ids);
    }
  }

  it.each(ODD_IDS)('runs calls whose id is %s under ids of its own', async (name, id) => {
    const titles = [`Odd id ${name} A`, `Odd id ${name} B`] as const;
    fake.respond(twoCalls([id, id], titles));
    const reply = await turn(`add two with ids ${name}`);
    expect(reply.status).toBe('completed');
    expect(reply.toolCalls).toEqual([
      expect.objectContaining({ tool: 'add_task', success: true }),
      expect.objectContaining({ tool: 'add_task', success: true }),
    ]);
    expect(reply.response).toBe('Added both.');
    expectResultsPaired(fake.requests[1]);
    const listed = await request(sut.http).get(`/api/${user.userId}/tasks`).set(user.auth).expect(200);
    expect((listed.body as { title: string }[]).map((task) => task.title)).toEqual(expect.arrayContaining([...titles]));
  });

  it('keeps a good id, and gives the second of two calls with the same id one of its own', async () => {
    fake.respond(twoCalls(['call_same', 'call_same'], ['Same id A', 'Same id B']));
    const reply = await turn('add two with the same id');
    expect(reply.toolCalls.map((call) => call.success)).toEqual([true, true]);
    expectResultsPaired(fake.requests[1]);
  });
});
