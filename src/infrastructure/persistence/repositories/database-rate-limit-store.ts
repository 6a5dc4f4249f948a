import type { ClientRegistrationHandlerOptions } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import type { DataSource } from 'typeorm';
import { countHit, HIT_ROW, takeBack } from '../tables/rate-limits';
import { changeRows, selectRow, sql } from '../sql';

/** express-rate-limit's options and Store, as the MCP SDK's handlers take them (`rateLimit`). */
type RateLimitOptions = Exclude<ClientRegistrationHandlerOptions['rateLimit'], false | undefined>;
type RateLimitStore = Extract<NonNullable<RateLimitOptions['store']>, { increment: unknown }>;
type StoreOptions = Parameters<NonNullable<RateLimitStore['init']>>[0];
type Increment = Awaited<ReturnType<RateLimitStore['increment']>>;

/** The largest `limit` the counting statement takes (an int): a limit given as a function counts without blocking. */
const NO_LIMIT = 2_147_483_647;

/**
 * express-rate-limit's counters in the database: the MCP SDK's OAuth endpoints limit each
 * address with express-rate-limit, whose own store is one process's memory, so behind several
 * replicas each would allow the limit again. The same `rate_limits` rows and counting statement
 * (countHit) as DatabaseThrottlerStorage, whose sweep forgets them too. Keys are `prefix` +
 * express-rate-limit's key (the client's address); one store per limiter, each with its own prefix.
 *
 * express-rate-limit keeps a fixed window and answers 429 while the window's hits exceed its
 * limit, with Retry-After at the window's end; so the statement blocks nothing itself
 * (`blockDurationMs: 0`) and every hit is counted.
 */
export class DatabaseRateLimitStore implements RateLimitStore {
  readonly localKeys = false;
  private windowMs = 60_000;
  private limit = NO_LIMIT;

  /** @param prefix what sets this limiter's keys apart from every other limit's (e.g. `oauth-register:`). */
  constructor(
    private readonly dataSource: DataSource,
    readonly prefix: string,
  ) {}

  /** Called once by express-rate-limit with its resolved options, before any request. */
  init(options: StoreOptions): void {
    this.windowMs = options.windowMs;
    if (typeof options.limit === 'number') this.limit = Math.min(options.limit, NO_LIMIT);
  }

  async increment(key: string): Promise<Increment> {
    const row = await selectRow(
      this.dataSource,
      countHit({ key: this.prefix + key, ttlMs: this.windowMs, limit: this.limit, blockDurationMs: 0, backOff: false }),
      HIT_ROW,
    );
    if (!row) throw new Error('rate_limits upsert returned no row');
    return { totalHits: row.hits, resetTime: new Date(Date.now() + Math.max(0, row.expires_in) * 1000) };
  }

  /** Takes back a hit of the current window (express-rate-limit's skipped requests). */
  async decrement(key: string): Promise<void> {
    await changeRows(this.dataSource, takeBack(this.prefix + key));
  }

  async resetKey(key: string): Promise<void> {
    await changeRows(this.dataSource, sql`DELETE FROM rate_limits WHERE key = ${this.prefix + key}`);
  }
}
