import { amountOf } from '../../src/domain/agent/money';
import { TokenLedger } from '../../src/infrastructure/persistence/repositories/token-ledger';
import { useOpenDatabase } from '../support/persistence';

const NOW = new Date('2026-12-14T12:00:00Z');
const amount = (text: string) => amountOf(text)!;

describe(`the month's ledger on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();
  let thresholds: readonly number[] = [];

  async function person(monthlyBudget: string | null = null): Promise<string> {
    const [{ id }] = await db.database.query<{ id: string }[]>(
      `INSERT INTO users (email, password_hash, role, monthly_budget) VALUES (gen_random_uuid() || '@example.com', 'x', 'user', $1::numeric) RETURNING id`,
      [monthlyBudget],
    );
    return id;
  }

  const month = async (userId: string) => {
    const [row] = await db.database.query<{ spent: string; reserved: string }[]>(
      'SELECT spent::text, reserved::text FROM month_ledger WHERE user_id = $1',
      [userId],
    );
    return row ? { spent: amountOf(row.spent), reserved: amountOf(row.reserved) } : null;
  };

  const ledger = (daily: { tokens: number | null }, defaultMonthly: string | null) =>
    new TokenLedger(
      db.database,
      { tokens: daily.tokens, cost: null },
      {
        defaultMonthly: defaultMonthly === null ? null : amount(defaultMonthly),
        currency: 'EUR',
        thresholds: () => thresholds,
      },
    );

  it('takes nothing from the month when the day refuses: the two reservations commit together or not at all', async () => {
    const userId = await person();
    const sut = ledger({ tokens: 100 }, '1');
    expect(await sut.reserve(userId, { tokens: 101, cost: amount('0.1') }, NOW)).toEqual({ spent: 'day' });
    expect(await month(userId)).toBeNull();
    const held = await sut.reserve(userId, { tokens: 100, cost: amount('0.1') }, NOW);
    expect(held).toMatchObject({ day: '2026-12-14', month: '2026-12', tokens: 100 });
    expect(await month(userId)).toEqual({ spent: 0n, reserved: amount('0.1') });
  });

  it("reads the person's own budget before the default, in the reserving statement", async () => {
    const userId = await person('0.5');
    const sut = ledger({ tokens: null }, '100');
    expect(await sut.reserve(userId, { tokens: 1, cost: amount('0.5') }, NOW)).toMatchObject({ month: '2026-12' });
    expect(await sut.reserve(userId, { tokens: 1, cost: amount('0.000000000001') }, NOW)).toEqual({ spent: 'month' });
  });

  it('settles to the real cost, even above the reservation, and notifies each threshold reached once', async () => {
    thresholds = [50, 80];
    const userId = await person();
    const sut = ledger({ tokens: null }, '10');
    const first = await sut.reserve(userId, { tokens: 10, cost: amount('1') }, NOW);
    if ('spent' in first) throw new Error('refused');
    // 8.5 of 10: both thresholds at once.
    await sut.settle(first, { tokens: 10, cost: amount('8.5') }, NOW);
    expect(await month(userId)).toEqual({ spent: amount('8.5'), reserved: 0n });
    const second = await sut.reserve(userId, { tokens: 10, cost: amount('0.1') }, NOW);
    if ('spent' in second) throw new Error('refused');
    await sut.settle(second, { tokens: 10, cost: amount('0.1') }, NOW);

    const notified = await db.database.query<{ facts: unknown }[]>(
      `SELECT facts FROM notifications WHERE recipient_id = $1 AND event = 'budget.threshold' ORDER BY seq`,
      [userId],
    );
    expect(notified.map((row) => row.facts)).toEqual([
      { percent: 50, spent: 8.5, budget: 10, currency: 'EUR' },
      { percent: 80, spent: 8.5, budget: 10, currency: 'EUR' },
    ]);
    thresholds = [];
  });
});
