import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { amountOf } from '../../src/domain/agent/money';
import { parseSse, streamChat } from '../support/chat-stream';
import { chatCompletion, FakeProviderServer } from '../support/fake-provider-server';
import { useTestApp } from '../support/test-app';

/** What the provider reports for its n-th answer: token counts that differ call by call, as a real model's do. */
function answerWithUsage(index: number) {
  const body = chatCompletion({ content: 'Noted.' }) as Record<string, unknown>;
  const prompt = 1_234 + 97 * index;
  const completion = 17 + 13 * index;
  return { json: { ...body, usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } } };
}

/**
 * Each person's spend in money, with prices for the model (the real OpenAI SDK against a local
 * server that reports the tokens): what the month's ledger holds is exactly the price table
 * applied to the tokens the decision log records, the person and admins see it, an admin sets
 * a person's own budget, and a month the budget cannot cover refuses the turn before any
 * request reaches the provider.
 */
describe('spend in money, by the month', () => {
  let fake: FakeProviderServer;
  beforeAll(async () => {
    fake = await FakeProviderServer.start();
  });
  const sut = useTestApp({
    env: () => ({
      ...fake.openAiEnv,
      LLM_PRICES: '{"gpt-test": {"input": 0.15, "output": 0.6}, "gpt-other": {"input": 2.5, "output": 10}}',
      LLM_PRICES_CURRENCY: 'EUR',
      CHAT_MONTHLY_BUDGET: '5',
    }),
  });
  const admin = sut.user({ admin: true });
  const ada = sut.user();
  const bob = sut.user();
  afterAll(() => fake?.stop());

  const db = () => sut.app.get(DataSource);
  const chat = (message: string) => request(sut.http).post(`/api/${ada.userId}/chat`).set(ada.auth).send({ message }).expect(200);

  it('counts the price table applied to the recorded tokens, exactly, and shows it rounded to the cent', async () => {
    fake.respond((_, index) => answerWithUsage(index));
    for (const errand of ['one', 'two', 'three', 'four', 'five']) await chat(`remember errand ${errand}`);
    expect(fake.requests).toHaveLength(5);

    const [ledger] = await db().query<{ spent: string; reserved: string; priced: string; recorded: string; cents: string }[]>(
      `SELECT l.spent::text, l.reserved::text,
              (SELECT sum(prompt_tokens * 0.00000015 + completion_tokens * 0.0000006) FROM decision_logs WHERE user_id = $1)::text AS priced,
              (SELECT sum(cost) FROM decision_logs WHERE user_id = $1)::text AS recorded,
              round(l.spent, 2)::text AS cents
         FROM month_ledger l WHERE l.user_id = $1`,
      [ada.userId],
    );
    // Exactly, not within a rounding error: compared as numbers of 10⁻¹².
    expect(amountOf(ledger.spent)).toBe(amountOf(ledger.priced));
    expect(amountOf(ledger.recorded)).toBe(amountOf(ledger.spent));
    expect(amountOf(ledger.reserved)).toBe(0n);

    const month = new Date().toISOString().slice(0, 7);
    const me = await request(sut.http).get('/auth/me').set(ada.auth).expect(200);
    const spent = Number(ledger.cents);
    expect(me.body.chatBudget.month).toEqual({
      month,
      currency: 'EUR',
      spent,
      budget: 5,
      percent: Math.floor((Number(ledger.spent) * 100) / 5),
    });

    const metrics = await request(sut.http).get('/metrics').expect(200);
    expect(metrics.text).toMatch(/bridle_model_cost_total\{provider="openai",model="gpt-test"\} [0-9.e-]+/);

    const seen = await request(sut.http).get(`/admin/users/${ada.userId}/budget`).set(admin.auth).expect(200);
    expect(seen.body).toEqual({
      userId: ada.userId,
      own: null,
      default: 5,
      month: {
        month,
        currency: 'EUR',
        spent,
        reserved: 0,
        spentExact: expect.any(String),
        budget: 5,
        percent: me.body.chatBudget.month.percent,
      },
    });
    expect(amountOf(seen.body.month.spentExact as string)).toBe(amountOf(ledger.spent));
  });

  it("lets an admin set a person's own budget and remove it, audited as set_budget; refuses bad input naming the field", async () => {
    const put = (body: unknown, who = admin, userId = bob.userId) =>
      request(sut.http)
        .put(`/admin/users/${userId}/budget`)
        .set(who.auth)
        .send(body as object);
    const own = await put({ monthly: 7.5 }).expect(200);
    expect(own.body).toMatchObject({ userId: bob.userId, own: 7.5, default: 5, month: { budget: 7.5, spent: 0, percent: 0 } });
    expect((await request(sut.http).get('/auth/me').set(bob.auth).expect(200)).body.chatBudget.month).toMatchObject({ budget: 7.5 });
    const removed = await put({ monthly: null }).expect(200);
    expect(removed.body).toMatchObject({ own: null, month: { budget: 5 } });

    for (const body of [{}, { monthly: -1 }, { monthly: 'ten' }, { monthly: 2_000_000_000 }, { monthly: 1, extra: true }]) {
      const refused = await put(body).expect(400);
      expect(refused.body).toMatchObject({ code: 'VALIDATION.FAILED', message: expect.stringMatching(/monthly|extra/) });
    }
    expect((await put({ monthly: 1 }, admin, 'not-a-uuid').expect(400)).body.message).toMatch(/userId/);
    expect((await put({ monthly: 1 }, admin, randomUUID()).expect(404)).body.code).toBe('BUDGET.ACCOUNT_NOT_FOUND');
    await put({ monthly: 1 }, ada).expect(403);
    await request(sut.http).get(`/admin/users/${bob.userId}/budget`).set(ada.auth).expect(403);

    const audit = await request(sut.http).get('/admin/audit-logs?tool=set_budget&limit=20').set(admin.auth).expect(200);
    const rows = audit.body.items as { source: string; actorId: string; status: string; arguments: unknown }[];
    expect(rows.filter((row) => row.status === 'succeeded').map((row) => row.arguments)).toEqual([
      { userId: bob.userId, monthly: null },
      { userId: bob.userId, monthly: '7.5' },
    ]);
    expect(rows.every((row) => row.source === 'admin' && row.actorId === admin.userId)).toBe(true);
  });

  it('refuses a turn the month cannot cover before any request reaches the provider, over /chat and /chat/stream', async () => {
    await request(sut.http).put(`/admin/users/${bob.userId}/budget`).set(admin.auth).send({ monthly: 0.0001 }).expect(200);
    fake.respond((_, index) => answerWithUsage(index));

    const plain = await request(sut.http).post(`/api/${bob.userId}/chat`).set(bob.auth).send({ message: 'add bread' }).expect(200);
    expect(plain.body).toMatchObject({
      finishReason: 'budget_spent',
      success: false,
      error: { category: 'MONTH_BUDGET_SPENT', message: expect.stringContaining("this month's budget") },
    });
    const streamed = await streamChat(sut.http, bob, { message: 'add bread' }).expect(200);
    const done = parseSse(streamed.body as string).find((event) => event.event === 'done');
    expect(done?.data).toMatchObject({ finishReason: 'budget_spent', error: { category: 'MONTH_BUDGET_SPENT' } });
    expect(fake.requests).toHaveLength(0);

    const [row] = await db().query<{ spent: string; reserved: string }[]>(
      'SELECT spent::text, reserved::text FROM month_ledger WHERE user_id = $1',
      [bob.userId],
    );
    expect([amountOf(row?.spent ?? '0'), amountOf(row?.reserved ?? '0')]).toEqual([0n, 0n]);
  });
});
