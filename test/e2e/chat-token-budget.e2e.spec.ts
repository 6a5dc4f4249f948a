import request from 'supertest';
import { DataSource } from 'typeorm';
import { TREATMENTS } from '../../src/domain/agent/failures';
import type { SignedInUser } from '../support/accounts';
import { useTestApp } from '../support/test-app';

/**
 * A person's daily token budget, with the offline model (whose token counts are exact):
 * concurrent turns reserve before each model call, and the ledger never passes the budget.
 */
describe('a daily token budget per person', () => {
  const BUDGET = 12_000;
  const sut = useTestApp({
    env: { CHAT_DAILY_TOKEN_BUDGET: String(BUDGET), LLM_MAX_TOKENS: '256', CHAT_RATE_LIMIT_PER_MINUTE: '1000' },
    startTimeout: 120_000,
  });
  const me = sut.user();
  const other = sut.user();

  const ledger = async (user: SignedInUser) => {
    const rows = await sut.app.get(DataSource).query<{ used: string }[]>('SELECT used FROM token_ledger WHERE user_id = $1', [user.userId]);
    return rows.length === 0 ? 0 : Number(rows[0].used);
  };

  it('holds under 20 concurrent turns: the ledger never exceeds it, and refused turns say so kindly', async () => {
    let highest = 0;
    let running = true;
    const watching = (async () => {
      while (running) {
        highest = Math.max(highest, await ledger(me));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        request(sut.http)
          .post(`/api/${me.userId}/chat`)
          .set(me.auth)
          .send({ message: `add errand number ${i + 1}` }),
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
    for (const reply of refused) {
      expect(reply.body.response).toContain(TREATMENTS.BUDGET_SPENT.userSees);
      expect(reply.body.response).not.toMatch(/token|budget_spent|BUDGET/);
    }

    const used = await ledger(me);
    expect(Math.max(highest, used)).toBeLessThanOrEqual(BUDGET);
    // What the ledger holds is exactly what the decisions of the day record.
    const [{ tokens }] = await sut.app
      .get(DataSource)
      .query<{ tokens: string }[]>('SELECT sum(prompt_tokens + completion_tokens) AS tokens FROM decision_logs WHERE user_id = $1', [
        me.userId,
      ]);
    expect(used).toBe(Number(tokens));

    // The account shows it; /metrics counts the refusals; someone else's budget is untouched.
    const account = await request(sut.http).get('/auth/me').set(me.auth).expect(200);
    expect(account.body.chatBudget).toEqual({
      tokens: { dailyLimit: BUDGET, usedToday: used },
      cost: { dailyLimit: null, usedToday: 0 },
      month: null,
    });
    const metrics = await request(sut.http).get('/metrics').expect(200);
    expect(metrics.text).toMatch(/bridle_quota_rejections_total\{kind="chat_budget",scope="user",window="day"\} [1-9]/);
    const theirs = await request(sut.http)
      .post(`/api/${other.userId}/chat`)
      .set(other.auth)
      .send({ message: 'add water the plants' })
      .expect(200);
    expect(theirs.body).toMatchObject({ status: 'completed', finishReason: 'stop' });
  }, 120_000);
});

describe('a daily cost budget per person, at the configured prices', () => {
  // 1 per 1 000 tokens either way: the cost is the tokens / 1 000.
  const COST_BUDGET = 9;
  const sut = useTestApp({
    env: {
      CHAT_DAILY_COST_BUDGET: String(COST_BUDGET),
      LLM_PRICE_INPUT_PER_1K: '1',
      LLM_PRICE_OUTPUT_PER_1K: '1',
      LLM_MAX_TOKENS: '256',
      CHAT_RATE_LIMIT_PER_MINUTE: '1000',
    },
    startTimeout: 120_000,
  });
  const me = sut.user();

  it('holds under concurrent turns, and the account shows what was spent', async () => {
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        request(sut.http)
          .post(`/api/${me.userId}/chat`)
          .set(me.auth)
          .send({ message: `add errand ${i + 1}` }),
      ),
    );
    expect(replies.filter((reply) => reply.body.finishReason === 'budget_spent').length).toBeGreaterThan(0);
    const [row] = await sut.app
      .get(DataSource)
      .query<{ used: string; cost: string }[]>('SELECT used, cost FROM token_ledger WHERE user_id = $1', [me.userId]);
    expect(Number(row.cost)).toBeLessThanOrEqual(COST_BUDGET);
    expect(Number(row.cost)).toBeCloseTo(Number(row.used) / 1000, 5);
    const account = await request(sut.http).get('/auth/me').set(me.auth).expect(200);
    expect(account.body.chatBudget.cost).toEqual({ dailyLimit: COST_BUDGET, usedToday: Number(row.cost) });
  }, 120_000);
});
