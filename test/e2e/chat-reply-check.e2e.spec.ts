import request from 'supertest';
import type { CompletionRequest } from '../../src/application/agent/ports/language-model.port';
import { UNFIT_REPLY } from '../../src/domain/agent/failures';
import { parseSse, type SseEvent, streamChat } from '../support/chat-stream';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { captureStdout } from '../support/log-capture';
import { useTestApp } from '../support/test-app';
import { answeringToolResult, callTool, say, ScriptedLanguageModel } from '../fakes/scripted-language-model';

/**
 * What a person reads is checked: a model's final words that are JSON, an internal code,
 * schema or validator text, an identifier or a tool's name never reach the person or the
 * stored conversation. The friendly sentence stands in for them, on the plain endpoint and on
 * the stream alike: there no delta carries them (the stream lets out only words that passed),
 * and `replace` brings the sentence. A WARN line says which rule, with the decision's id.
 */

/** The text the console shows once the stream ended: deltas appended, `replace` taking their place (web/src/pages/chat). */
function shownByConsole(events: readonly SseEvent[]): string {
  let text = '';
  for (const { event, data } of events) {
    if (event === 'delta') text += data.text as string;
    if (event === 'replace') text = data.text as string;
  }
  return text;
}

interface ChatBody {
  conversationId: string;
  response: string;
  decision: { id: string };
  toolCalls: { tool: string; success: boolean; error?: { message: string } }[];
}

/** A turn: a tool call first when `tool` is set, then, with its result, the model's final words. */
interface Case {
  readonly name: string;
  /** `text`: what the model says beside the call. */
  readonly tool?: { readonly name: string; readonly args: unknown; readonly text?: string };
  readonly answer: string;
  readonly rule: string;
  /** What the person reads instead; a function of the turn when it depends on it. */
  readonly expected: string | ((body: ChatBody) => string);
  /** Of the model's words, what no delta of the stream may carry (default: all of them). */
  readonly leak?: string;
}

const UNFIT: readonly Case[] = [
  {
    name: 'raw JSON after adding a task',
    tool: { name: 'add_task', args: { title: 'Buy milk' } },
    answer: '{"status":"ok","task":{"number":1,"title":"Buy milk","priority":"medium"}}',
    rule: 'json',
    expected: "Added 'Buy milk' to your list.",
  },
  {
    name: 'JSON in a code fence, with a word before it',
    tool: { name: 'list_tasks', args: {} },
    answer: 'Result:\n```json\n{"status":"all","count":0,"tasks":[]}\n```',
    rule: 'json',
    expected: 'You have no tasks.',
  },
  { name: 'an error code', answer: 'TASK_NOT_FOUND (no such task)', rule: 'internal_code', expected: UNFIT_REPLY.NO_WORDS },
  {
    name: 'a dotted error code',
    answer: 'That failed with OUTREACH.QUOTA_EXCEEDED, please retry.',
    rule: 'internal_code',
    expected: UNFIT_REPLY.NO_WORDS,
  },
  {
    name: 'schema text after a refused call',
    tool: { name: 'add_task', args: {} },
    answer: "Error: data must have required property 'title'",
    rule: 'schema_text',
    expected: 'Could you provide more details about the title?',
  },
  {
    name: 'a tool name',
    tool: { name: 'list_tasks', args: {} },
    answer: 'I ran list_tasks and your list is empty.',
    rule: 'tool_name',
    expected: 'You have no tasks.',
  },
  {
    name: "a tool name beside a deletion's question",
    tool: { name: 'delete_task', args: { query: 'Old thing' }, text: 'Calling delete_task for you.' },
    answer: 'Never asked: the turn waits for the question.',
    rule: 'tool_name',
    // The server's own question stays; the model's words go.
    expected: (body) => body.toolCalls[0].error!.message,
  },
  {
    name: "a validator's own message, echoed",
    answer: 'That did not work: title must NOT have more than 200 characters',
    rule: 'schema_text',
    expected: UNFIT_REPLY.NO_WORDS,
  },
  {
    name: 'a UUID',
    answer: 'Deleted task 3f1c2b9e-8a4d-4f6b-9c2e-1d5a7b8c9d0e. Anything else?',
    rule: 'identifier',
    expected: UNFIT_REPLY.NO_WORDS,
  },
  {
    name: 'a field name',
    tool: { name: 'list_tasks', args: {} },
    answer: 'Your list is empty: no task_id to show.',
    rule: 'identifier',
    expected: 'You have no tasks.',
  },
  {
    name: 'a JSON fragment after a sentence that passes',
    answer: 'Sure thing. I saved it as {"title": "Buy milk"} so that you can find it again later on, whenever you like.',
    rule: 'json',
    expected: UNFIT_REPLY.NO_WORDS,
    leak: '{"title"',
  },
];

const FIT: readonly Case[] = [
  {
    name: 'an ordinary answer',
    tool: { name: 'add_task', args: { title: 'Buy milk' } },
    answer: "Added 'Buy milk' to your list.",
    rule: '',
    expected: "Added 'Buy milk' to your list.",
  },
  {
    name: "the person's own title that looks like a code",
    tool: { name: 'add_task', args: { title: 'Fix CI_TIMEOUT' } },
    answer: "Added 'Fix CI_TIMEOUT' to your list, e.g. for 10:30 tomorrow.",
    rule: '',
    expected: "Added 'Fix CI_TIMEOUT' to your list, e.g. for 10:30 tomorrow.",
  },
];

function script(turn: Case) {
  return (request: CompletionRequest) =>
    turn.tool && !answeringToolResult(request)
      ? { ...callTool(turn.tool.name, turn.tool.args), text: turn.tool.text ?? null }
      : say(turn.answer);
}

describe("the model's final words are checked before a person reads them", () => {
  const model = new ScriptedLanguageModel();
  let stdout: ReturnType<typeof captureStdout>;
  beforeAll(() => {
    stdout = captureStdout();
  });
  const sut = useTestApp({ env: { LOG_LEVEL: 'info' }, languageModel: model });
  afterAll(() => stdout?.restore());

  async function plain(user: SignedInUser, message: string): Promise<{ body: ChatBody; shown: string; deltas?: string }> {
    const res = await request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send({ message });
    expect(res.status).toBe(200);
    const body = res.body as ChatBody;
    return { body, shown: body.response };
  }

  async function streamed(user: SignedInUser, message: string): Promise<{ body: ChatBody; shown: string; deltas?: string }> {
    const res = await streamChat(sut.http, user, { message });
    expect(res.status).toBe(200);
    const events = parseSse(res.body as string);
    expect(events.at(-1)!.event).toBe('done');
    // A replacement comes once, after every delta.
    const replaced = events.findIndex((e) => e.event === 'replace');
    if (replaced >= 0) expect(events.slice(replaced + 1).map((e) => e.event)).not.toContain('delta');
    const deltas = events.flatMap(({ event, data }) => (event === 'delta' ? [data.text as string] : [])).join('');
    return { body: events.at(-1)!.data as unknown as ChatBody, shown: shownByConsole(events), deltas };
  }

  async function stored(user: SignedInUser, conversationId: string): Promise<string> {
    const res = await request(sut.http).get(`/api/${user.userId}/conversations/${conversationId}/messages`).set(user.auth).expect(200);
    return (res.body as { items: { role: string; content: string }[] }).items.at(-1)!.content;
  }

  async function warnings(decisionId: string): Promise<Record<string, unknown>[]> {
    // pino writes through Jest's stdout; let what the turn logged arrive.
    await new Promise((resolve) => setImmediate(resolve));
    return stdout
      .text()
      .split('\n')
      .filter((line) => line.includes(decisionId))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === "model's reply replaced");
  }

  async function setUp(turn: Case): Promise<SignedInUser> {
    const user = await signUpAndIn(sut.http);
    // A task for the deletion's question to name.
    if (turn.tool?.name === 'delete_task') {
      await request(sut.http).post(`/api/${user.userId}/tasks`).set(user.auth).send({ title: 'Old thing' }).expect(201);
    }
    model.use(script(turn));
    return user;
  }

  describe.each([
    ['plain', plain],
    ['streamed', streamed],
  ])('%s', (_, send) => {
    it.each(UNFIT.map((turn) => [turn.name, turn] as const))('%s: the person reads the friendly sentence', async (_name, turn) => {
      const user = await setUp(turn);
      const { body, shown, deltas } = await send(user, 'hello');
      // On the stream, the unfit words never went out, not even before the replacement.
      if (deltas !== undefined) expect(deltas).not.toContain(turn.leak ?? turn.tool?.text ?? turn.answer);
      const expected = typeof turn.expected === 'function' ? turn.expected(body) : turn.expected;
      expect(body.response).toBe(expected);
      expect(shown).toBe(expected);
      expect(await stored(user, body.conversationId)).toBe(expected);
      const lines = await warnings(body.decision.id);
      expect(lines).toEqual([expect.objectContaining({ level: 40, decisionId: body.decision.id, rule: turn.rule })]);
      // The words themselves stay out of the log beyond the bounded word that broke the rule.
      expect(JSON.stringify(lines[0])).not.toContain(turn.tool?.text ?? turn.answer);
    });

    it.each(FIT.map((turn) => [turn.name, turn] as const))('%s: the model\u2019s words stand', async (_name, turn) => {
      const user = await setUp(turn);
      const { body, shown } = await send(
        user,
        turn.tool?.name === 'add_task' ? `add ${String((turn.tool.args as { title: string }).title)}` : 'hi',
      );
      expect(body.response).toBe(turn.expected);
      expect(shown).toBe(turn.expected);
      expect(await stored(user, body.conversationId)).toBe(turn.expected);
      expect(await warnings(body.decision.id)).toEqual([]);
    });
  });
});
