import { z } from 'zod';
import { empty, raw, sql, type Statement } from '../sql';

/** How many times longer each consecutive block of a backing-off limit lasts, at most: 2^6. */
const MAX_BACK_OFF_DOUBLINGS = 6;
/** A block counts as consecutive when the previous one ended less than this long before. */
export const BACK_OFF_INTERVAL = raw(`interval '24 hours'`);
const MAX_DOUBLINGS = raw(String(MAX_BACK_OFF_DOUBLINGS));

/** One hit on a rate limit's counter (a row of `rate_limits`). */
export interface RateLimitHit {
  readonly key: string;
  /** How long a window lasts from its first hit. */
  readonly ttlMs: number;
  /** Hits a window allows; the one past it blocks the key. */
  readonly limit: number;
  readonly blockDurationMs: number;
  /** Each block that follows another within 24 hours lasts twice as long (up to 64 times). */
  readonly backOff: boolean;
  /** A condition on the statement around it: when it does not hold, nothing is counted and no row returned. */
  readonly only?: Statement;
}

/** What a hit leaves: the window's hits and how long it and any block still last. */
export const HIT_ROW = z.object({ hits: z.number(), expires_in: z.number(), blocked_for: z.number().nullable() });

/**
 * The counting statement, one upsert whose row lock serialises racing hits, returning a
 * HIT_ROW: used on its own by the throttler's storage, and as the first part of a chat
 * turn's opening statement (the turn opens only when the hit is not blocked).
 *
 * Fixed windows: the first hit opens a window of `ttlMs`; the hit that passes `limit` blocks
 * the key for `blockDurationMs`. A blocked key's hits are not counted.
 */
export function countHit(hit: RateLimitHit): Statement {
  const newlyBlocked = sql`(r.blocked_until IS NULL OR r.blocked_until <= (SELECT now FROM t))
    AND (CASE WHEN r.window_ends <= (SELECT now FROM t) THEN 1 ELSE r.hits + 1 END) > ${hit.limit}::int`;
  return sql`WITH t AS (SELECT clock_timestamp() AS now)
       INSERT INTO rate_limits AS r (key, hits, window_ends, blocks)
       SELECT ${hit.key}, 1, t.now + ${hit.ttlMs}::float8 * interval '1 millisecond', 0 FROM t ${hit.only ? sql`WHERE ${hit.only}` : empty}
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
           WHEN ${newlyBlocked} THEN (SELECT now FROM t) + ${hit.blockDurationMs}::float8 * interval '1 millisecond' * CASE
             WHEN ${hit.backOff}::boolean AND r.blocked_until > (SELECT now FROM t) - ${BACK_OFF_INTERVAL}
               THEN power(2, least(r.blocks, ${MAX_DOUBLINGS}))
             ELSE 1 END
           ELSE r.blocked_until END
       RETURNING hits,
         ceil(extract(epoch FROM window_ends - clock_timestamp()))::int AS expires_in,
         CASE WHEN blocked_until > clock_timestamp() THEN ceil(extract(epoch FROM blocked_until - clock_timestamp()))::int END AS blocked_for`;
}

/** What takeWithin leaves: whether the call was counted, and how long its window still lasts. */
export const TAKE_ROW = z.object({ taken: z.boolean(), expires_in: z.number().nullable() });

/**
 * Counts one call on `key` only while its window has room for it (fewer than `max`), in one
 * upsert whose row lock serialises racing calls, on the database's clock: a call that finds
 * the window full changes nothing, so no count ever goes past `max` and nothing is taken back
 * from a call that was refused. An ended window starts again at this call. Returns a TAKE_ROW.
 */
export function takeWithin(key: string, windowMs: number, max: number): Statement {
  return sql`WITH t AS (SELECT clock_timestamp() AS now),
       up AS (
         INSERT INTO rate_limits AS r (key, hits, window_ends, blocks)
         SELECT ${key}, 1, t.now + ${windowMs}::float8 * interval '1 millisecond', 0 FROM t
         ON CONFLICT (key) DO UPDATE SET
           hits = CASE WHEN r.window_ends <= (SELECT now FROM t) THEN 1 ELSE r.hits + 1 END,
           window_ends = CASE WHEN r.window_ends <= (SELECT now FROM t) THEN excluded.window_ends ELSE r.window_ends END
         WHERE r.window_ends <= (SELECT now FROM t) OR r.hits < ${max}::int
         RETURNING window_ends)
     SELECT EXISTS (SELECT 1 FROM up) AS taken,
       ceil(extract(epoch FROM coalesce((SELECT window_ends FROM up), (SELECT window_ends FROM rate_limits WHERE key = ${key}))
         - clock_timestamp()))::int AS expires_in`;
}

/** Takes back one hit of `key`'s current window (a call counted and then not let through). */
export function takeBack(key: string): Statement {
  return sql`UPDATE rate_limits SET hits = greatest(hits - 1, 0) WHERE key = ${key} AND window_ends > clock_timestamp()`;
}
