import { Logger, type OnModuleDestroy } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { PeriodicJob } from '../../periodic-job';
import { changeRows, raw, selectRow, sql } from '../sql';

/** How many times longer each consecutive block of a backing-off limit lasts, at most: 2^6. */
const MAX_BACK_OFF_DOUBLINGS = 6;
/** A block counts as consecutive when the previous one ended less than this long before. */
const BACK_OFF_INTERVAL = raw(`interval '24 hours'`);
const MAX_DOUBLINGS = raw(String(MAX_BACK_OFF_DOUBLINGS));
const SWEEP_INTERVAL_MS = 10 * 60_000;

/**
 * @nestjs/throttler's counters in the database, so that every server process in front of one
 * database counts the same requests (the library's own storage is one process's memory).
 * Written here because no maintained PostgreSQL storage exists; Redis ones do, but Bridle
 * runs without Redis. One statement per hit: an upsert whose row lock serialises racing hits.
 *
 * Fixed windows: the first hit opens a window of `ttl`; the hit that passes `limit` blocks
 * the key for `blockDuration`. Limits named in `backOff` double that block for every block
 * that follows another within 24 hours (up to 64 times), so a patient guesser slows down.
 */
export class DatabaseThrottlerStorage implements ThrottlerStorage, OnModuleDestroy {
  private readonly sweeping: PeriodicJob;

  constructor(
    private readonly dataSource: DataSource,
    private readonly backOff: ReadonlySet<string> = new Set(),
  ) {
    // A failed sweep is logged; the next one tries again (a counter kept longer only costs a row).
    this.sweeping = new PeriodicJob('sweeping rate limit counters', () => this.sweep(), new Logger(DatabaseThrottlerStorage.name));
    this.sweeping.start(SWEEP_INTERVAL_MS);
  }

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): ReturnType<ThrottlerStorage['increment']> {
    const newlyBlocked = newlyBlockedOver(limit);
    const row = await selectRow(
      this.dataSource,
      sql`WITH t AS (SELECT clock_timestamp() AS now)
       INSERT INTO rate_limits AS r (key, hits, window_ends, blocks)
       SELECT ${key}, 1, t.now + ${ttl}::float8 * interval '1 millisecond', 0 FROM t
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE
           WHEN r.blocked_until > (SELECT now FROM t) THEN r.hits
           WHEN r.window_ends <= (SELECT now FROM t) THEN 1
           ELSE r.hits + 1 END,
         window_ends = CASE
           WHEN r.blocked_until > (SELECT now FROM t) THEN r.window_ends
           WHEN r.window_ends <= (SELECT now FROM t) THEN excluded.window_ends
           ELSE r.window_ends END,
         blocks = CASE
           WHEN ${newlyBlocked} THEN
             CASE WHEN r.blocked_until > (SELECT now FROM t) - ${BACK_OFF_INTERVAL} THEN r.blocks + 1 ELSE 1 END
           ELSE r.blocks END,
         blocked_until = CASE
           WHEN ${newlyBlocked} THEN (SELECT now FROM t) + ${blockDuration}::float8 * interval '1 millisecond' * CASE
             WHEN ${this.backOff.has(throttlerName)}::boolean AND r.blocked_until > (SELECT now FROM t) - ${BACK_OFF_INTERVAL}
               THEN power(2, least(r.blocks, ${MAX_DOUBLINGS}))
             ELSE 1 END
           ELSE r.blocked_until END
       RETURNING hits,
         ceil(extract(epoch FROM window_ends - clock_timestamp()))::int AS expires_in,
         CASE WHEN blocked_until > clock_timestamp() THEN ceil(extract(epoch FROM blocked_until - clock_timestamp()))::int END AS blocked_for`,
      HIT_ROW,
    );
    if (!row) throw new Error('rate_limits upsert returned no row');
    return {
      totalHits: row.hits,
      timeToExpire: Math.max(0, row.expires_in),
      isBlocked: row.blocked_for !== null,
      timeToBlockExpire: Math.max(0, row.blocked_for ?? 0),
    };
  }

  /** Waits for a sweep under way, so that the database can close after it. */
  onModuleDestroy(): Promise<void> {
    return this.sweeping.stop();
  }

  /** Counters whose window and block are long over are forgotten. */
  private sweep(): Promise<unknown> {
    return changeRows(
      this.dataSource,
      sql`DELETE FROM rate_limits WHERE window_ends < now() - interval '1 hour'
            AND (blocked_until IS NULL OR blocked_until < now() - ${BACK_OFF_INTERVAL})`,
    );
  }
}

/** This hit passes `limit` on a key that is not blocked now. */
const newlyBlockedOver = (limit: number) => sql`(r.blocked_until IS NULL OR r.blocked_until <= (SELECT now FROM t))
  AND (CASE WHEN r.window_ends <= (SELECT now FROM t) THEN 1 ELSE r.hits + 1 END) > ${limit}::int`;

const HIT_ROW = z.object({ hits: z.number(), expires_in: z.number(), blocked_for: z.number().nullable() });
