import { Logger, type OnModuleDestroy } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { DataSource } from 'typeorm';
import { PeriodicJob } from '../../periodic-job';
import { BACK_OFF_INTERVAL, countHit, HIT_ROW } from '../tables/rate-limits';
import { changeRows, selectRow, sql } from '../sql';

const SWEEP_INTERVAL_MS = 10 * 60_000;

/**
 * @nestjs/throttler's counters in the database, so that every server process in front of one
 * database counts the same requests (the library's own storage is one process's memory).
 * Written here because no maintained PostgreSQL storage exists; Redis ones do, but Bridle
 * runs without Redis. One statement per hit (countHit). Limits named in `backOff` double their
 * block for every block that follows another within 24 hours (up to 64 times), so a patient
 * guesser slows down. The chat's own limit is counted by the turn's opening statement instead
 * (PostgresConversationStore), with the same statement and the same `rate_limits` rows.
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
    const row = await selectRow(
      this.dataSource,
      countHit({ key, ttlMs: ttl, limit, blockDurationMs: blockDuration, backOff: this.backOff.has(throttlerName) }),
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
