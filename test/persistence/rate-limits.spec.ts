import { randomUUID } from 'node:crypto';
import { DatabaseThrottlerStorage } from '../../src/infrastructure/persistence/repositories/database-throttler-storage';
import { useOpenDatabase } from '../support/persistence';

describe(`rate limit counters on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  let sut: DatabaseThrottlerStorage;
  const db = useOpenDatabase({ beforeClose: () => sut?.onModuleDestroy() });

  beforeAll(() => {
    sut = new DatabaseThrottlerStorage(db.database, new Set(['sign-in']));
  });

  /**
   * To the key's counter, `ms` pass: its window and block move back by that much. The counting
   * statement reads the database's own clock (clock_timestamp()), which no injected Clock moves.
   */
  const timePasses = (key: string, ms: number) =>
    db.database.query(
      `UPDATE rate_limits SET window_ends = window_ends - $2::float8 * interval '1 millisecond',
         blocked_until = blocked_until - $2::float8 * interval '1 millisecond' WHERE key = $1`,
      [key, ms],
    );

  it('counts racing hits exactly and blocks the one past the limit', async () => {
    const key = randomUUID();
    const results = await Promise.all(Array.from({ length: 12 }, () => sut.increment(key, 60_000, 5, 60_000, 'default')));
    expect(results.map((r) => r.totalHits).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 6, 6, 6, 6, 6, 6]);
    expect(results.filter((r) => r.isBlocked)).toHaveLength(7);
    const blocked = results.find((r) => r.isBlocked)!;
    expect(blocked.timeToBlockExpire).toBeGreaterThan(55);
    expect(blocked.timeToBlockExpire).toBeLessThanOrEqual(60);
  });

  it('opens a new window once the old one is over', async () => {
    const key = randomUUID();
    await sut.increment(key, 1_000, 5, 1_000, 'default');
    await sut.increment(key, 1_000, 5, 1_000, 'default');
    await timePasses(key, 1_100);
    const next = await sut.increment(key, 1_000, 5, 1_000, 'default');
    expect(next).toMatchObject({ totalHits: 1, isBlocked: false });
  });

  it('doubles each block that follows another, for a limit that backs off', async () => {
    const key = randomUUID();
    const hit = () => sut.increment(key, 1_000, 1, 1_000, 'sign-in');
    await hit();
    const first = await hit();
    expect(first).toMatchObject({ isBlocked: true, timeToBlockExpire: 1 });
    await timePasses(key, 1_100);
    await hit();
    const second = await hit();
    expect(second).toMatchObject({ isBlocked: true, timeToBlockExpire: 2 });
    await timePasses(key, 2_100);
    await hit();
    const third = await hit();
    expect(third).toMatchObject({ isBlocked: true, timeToBlockExpire: 4 });
  });

  it('does not back off a limit that was not asked to', async () => {
    const key = randomUUID();
    const hit = () => sut.increment(key, 1_000, 1, 1_000, 'default');
    await hit();
    await hit();
    await timePasses(key, 1_100);
    await hit();
    expect(await hit()).toMatchObject({ isBlocked: true, timeToBlockExpire: 1 });
  });
});
