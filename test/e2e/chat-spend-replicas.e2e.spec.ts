import request from 'supertest';
import { DataSource } from 'typeorm';
import { amountOf } from '../../src/domain/agent/money';
import { chatCompletion, FakeProviderServer } from '../support/fake-provider-server';
import { startTestApp, type TestApp, useTestApp } from '../support/test-app';
import { usingPostgresServer } from '../support/test-database';

const BUDGET = '0.1';

/**
 * A person's monthly budget under 20 concurrent turns at its edge, sent alternately to two
 * replicas on one database (on PostgreSQL; on the embedded database, one process's, the same
 * app twice): each model call reserves its worst case on the month's row first, by one
 * conditional upsert, so the month never holds more than the budget, whichever replica asks.
 */
describe('a monthly budget across replicas', () => {
  let fake: FakeProviderServer;
  beforeAll(async () => {
    fake = await FakeProviderServer.start();
    // 0.01 a call: 1 000 prompt tokens at 10 a million; each reserves about 0.025 first.
    fake.respond(() => ({
      json: {
        ...(chatCompletion({ content: 'Noted.' }) as object),
        usage: { prompt_tokens: 1_000, completion_tokens: 0, total_tokens: 1_000 },
      },
    }));
  });
  let replica: TestApp;
  const env = () => ({
    ...fake.openAiEnv,
    LLM_PRICES: '{"gpt-test": {"input": 10, "output": 10}}',
    CHAT_MONTHLY_BUDGET: BUDGET,
    CHAT_RATE_LIMIT_PER_MINUTE: '1000',
  });
  const sut = useTestApp({
    env,
    startTimeout: 120_000,
    beforeClose: async () => {
      if (replica !== sut) await replica?.close();
    },
  });
  const ada = sut.user();
  afterAll(() => fake?.stop());

  beforeAll(async () => {
    replica = usingPostgresServer ? await startTestApp(sut.db, env()) : sut;
  }, 120_000);

  const month = async () => {
    const rows = await sut.app
      .get(DataSource)
      .query<{ spent: string; reserved: string }[]>('SELECT spent::text, reserved::text FROM month_ledger WHERE user_id = $1', [
        ada.userId,
      ]);
    return rows.length === 0 ? { spent: 0n, reserved: 0n } : { spent: amountOf(rows[0].spent)!, reserved: amountOf(rows[0].reserved)! };
  };

  it('never holds more than the budget under 20 concurrent turns, and refuses the rest kindly', async () => {
    const budget = amountOf(BUDGET)!;
    let highest = 0n;
    let running = true;
    const watching = (async () => {
      while (running) {
        const { spent, reserved } = await month();
        if (spent + reserved > highest) highest = spent + reserved;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        request((i % 2 === 0 ? sut : replica).http)
          .post(`/api/${ada.userId}/chat`)
          .set(ada.auth)
          .send({ message: `remember errand ${i + 1}` }),
      ),
    );
    running = false;
    await watching;

    expect(replies.map((reply) => reply.status)).toEqual(Array(20).fill(200));
    const refused = replies.filter((reply) => reply.body.finishReason === 'budget_spent');
    const answered = replies.filter((reply) => reply.body.status === 'completed');
    expect(refused.length).toBeGreaterThan(0);
    expect(answered.length).toBeGreaterThan(0);
    expect(refused.length + answered.length).toBe(20);
    for (const reply of refused) expect(reply.body.error).toMatchObject({ category: 'MONTH_BUDGET_SPENT' });

    const { spent, reserved } = await month();
    expect(reserved).toBe(0n);
    expect(highest <= budget && spent <= budget).toBe(true);
    // Every answered turn made one call, and each call the provider got was one counted.
    expect(fake.requests).toHaveLength(answered.length);
    expect(spent).toBe(amountOf('0.01')! * BigInt(answered.length));
  }, 120_000);
});
