import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { DataSource } from 'typeorm';
import type { SignedInUser } from '../support/accounts';
import { parseSse, streamChat } from '../support/chat-stream';
import { chatCompletion, FakeProviderServer, type RecordedRequest } from '../support/fake-provider-server';
import { useTestApp } from '../support/test-app';

/** Past 100 % of the month's budget, every turn and every tool call is refused; past 80 %, the person is asked before each turn. */
const RULES = [
  {
    name: 'month-spent',
    tools: ['chat_turn', '*'],
    when: { budgetUsed: { atLeastPercent: 100 } },
    effect: 'deny',
    reason: "This month's budget is spent; ask an admin for more.",
  },
  { name: 'ask-past-80', tools: ['chat_turn'], when: { budgetUsed: { atLeastPercent: 80 } }, effect: 'ask-person' },
];

interface Turn {
  readonly conversationId: string;
  readonly response: string;
  readonly status: string;
  readonly finishReason: string;
  readonly pendingConfirmation: { id: string; tool: string; count: number; items: string[] } | null;
}

/** Every answer costs 0.01: 1 000 prompt tokens at 10 a million. */
function answer() {
  const body = chatCompletion({ content: 'Done.' }) as Record<string, unknown>;
  return { json: { ...body, usage: { prompt_tokens: 1_000, completion_tokens: 0, total_tokens: 1_000 } } };
}

/**
 * Rules on the share of a person's month (`when.budgetUsed`) over the chat turn (`chat_turn`)
 * and every tool call, against the real OpenAI SDK and a local server that reports the tokens:
 * the soft threshold asks once per turn with the spend in the question and goes on or stops on
 * the answer; the cap refuses the turn before any provider request, over /chat and
 * /chat/stream, and an MCP client's calls; the first time the spend reaches a threshold in a
 * month, the person's notification is written once.
 */
describe('a policy on the month’s budget', () => {
  let fake: FakeProviderServer;
  beforeAll(async () => {
    fake = await FakeProviderServer.start();
  });
  const clients: Client[] = [];
  const sut = useTestApp({
    env: () => ({
      ...fake.openAiEnv,
      LLM_PRICES: '{"gpt-test": {"input": 10, "output": 10}}',
      LLM_PRICES_CURRENCY: 'EUR',
      CHAT_MONTHLY_BUDGET: '10',
    }),
    beforeClose: () => Promise.all(clients.map((client) => client.close().catch(() => undefined))),
  });
  const admin = sut.user({ admin: true });
  const ada = sut.user();
  const month = new Date().toISOString().slice(0, 7);
  afterAll(() => fake?.stop());

  beforeAll(async () => {
    await request(sut.http).put('/admin/policy').set(admin.auth).send({ rules: RULES, reason: 'Budgets in money' }).expect(200);
    fake.respond(answer);
  });

  const db = () => sut.app.get(DataSource);
  /** Sets what the person's month holds, as calls before this test would have left it. */
  const spent = (who: SignedInUser, amount: string) =>
    db().query(
      `INSERT INTO month_ledger (user_id, month, spent) VALUES ($1, $2, $3::numeric)
       ON CONFLICT (user_id, month) DO UPDATE SET spent = EXCLUDED.spent, reserved = 0`,
      [who.userId, month, amount],
    );
  const chat = async (who: SignedInUser, body: { message: string; conversationId?: string; confirmationId?: string }) =>
    (await request(sut.http).post(`/api/${who.userId}/chat`).set(who.auth).send(body).expect(200)).body as Turn;
  const lastUserMessage = (req: RecordedRequest) =>
    (req.body.messages as { role: string; content: string }[]).filter((message) => message.role === 'user').at(-1)?.content;

  it('notifies the person once, when the spend first reaches 80 %', async () => {
    await spent(ada, '7.995');
    const before = fake.requests.length;
    // 79.95 %: the turn runs, and its 0.01 takes the month to 80.05 %.
    expect(await chat(ada, { message: 'hello' })).toMatchObject({ status: 'completed', finishReason: 'stop' });
    expect(fake.requests.length).toBe(before + 1);

    const notifications = await db().query<{ event: string; subject: unknown; facts: unknown; recipient_id: string }[]>(
      `SELECT event, subject, facts, recipient_id FROM notifications WHERE event = 'budget.threshold'`,
    );
    expect(notifications).toEqual([
      {
        event: 'budget.threshold',
        recipient_id: ada.userId,
        subject: { kind: 'budget', month },
        facts: { percent: 80, spent: 8.01, budget: 10, currency: 'EUR' },
      },
    ]);
  });

  it('past 80 %, asks once before the turn with the spend in the question, and on yes sends the held message to the model', async () => {
    const before = fake.requests.length;
    const asked = await chat(ada, { message: 'add bread to my list' });
    expect(asked).toMatchObject({
      finishReason: 'confirmation_required',
      response: 'You have used €8.01 of your €10.00 budget this month (80 %). Go on?',
      pendingConfirmation: { tool: 'chat_turn', count: 1, items: ['You have used €8.01 of your €10.00 budget this month (80 %).'] },
    });
    expect(fake.requests.length).toBe(before);

    const yes = await chat(ada, { message: 'yes', conversationId: asked.conversationId, confirmationId: asked.pendingConfirmation!.id });
    expect(yes).toMatchObject({ status: 'completed', finishReason: 'stop', pendingConfirmation: null });
    // One model call, answering the message the question held, not a bare "yes".
    expect(fake.requests.length).toBe(before + 1);
    expect(lastUserMessage(fake.requests.at(-1)!)).toBe('add bread to my list');

    // Still one notification for 80 %, however many calls settled past it.
    const [{ count }] = await db().query<{ count: string }[]>(`SELECT count(*) FROM notifications WHERE event = 'budget.threshold'`);
    expect(Number(count)).toBe(1);
  });

  it('sends nothing to the model when the person says no', async () => {
    const before = fake.requests.length;
    const asked = await chat(ada, { message: 'add milk' });
    expect(asked.finishReason).toBe('confirmation_required');
    const no = await chat(ada, { message: 'no', conversationId: asked.conversationId });
    expect(no).toMatchObject({ response: "Okay, I've stopped there. Nothing was sent to the assistant.", pendingConfirmation: null });
    expect(fake.requests.length).toBe(before);
  });

  it('asks over /chat/stream too, as a confirmation_required event', async () => {
    const before = fake.requests.length;
    const streamed = await streamChat(sut.http, ada, { message: 'add eggs' }).expect(200);
    const events = parseSse(streamed.body as string);
    expect(events.find((event) => event.event === 'confirmation_required')?.data).toMatchObject({
      prompt: expect.stringMatching(/^You have used €8\.0\d of your €10\.00 budget this month \(80 %\)\. Go on\?$/),
      pendingConfirmation: { tool: 'chat_turn' },
    });
    expect(fake.requests.length).toBe(before);
  });

  it('past 100 %, refuses the turn before any provider request, over /chat and /chat/stream, with the rule’s reason', async () => {
    await spent(ada, '10');
    const before = fake.requests.length;
    const refused = await chat(ada, { message: 'add butter' });
    expect(refused).toMatchObject({
      status: 'completed',
      finishReason: 'budget_spent',
      pendingConfirmation: null,
      response:
        "You have used €10.00 of your €10.00 budget this month (100 %). This month's budget is spent; ask an admin for more. " +
        "(Policy rule 'month-spent'.) Nothing was sent to the assistant.",
    });
    const streamed = await streamChat(sut.http, ada, { message: 'add butter' }).expect(200);
    const done = parseSse(streamed.body as string).find((event) => event.event === 'done');
    expect(done?.data).toMatchObject({ finishReason: 'budget_spent', response: refused.response });
    expect(fake.requests.length).toBe(before);
  });

  it('past 100 %, refuses an MCP client’s tool calls with the rule’s reason', async () => {
    const client = new Client({ name: 'budget-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', sut.http), { requestInit: { headers: ada.auth } }));
    clients.push(client);
    const result = await client.callTool({ name: 'add_task', arguments: { title: 'Buy butter' } });
    expect(result).toMatchObject({
      isError: true,
      structuredContent: {
        code: 'POLICY_DENIED',
        details: { rule: 'month-spent', reason: "This month's budget is spent; ask an admin for more." },
      },
    });
    const tasks = await request(sut.http).get(`/api/${ada.userId}/tasks`).set(ada.auth).expect(200);
    expect(tasks.body).toEqual([]);
  });
});
