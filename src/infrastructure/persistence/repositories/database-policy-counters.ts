import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { type LimitReached, PolicyCounters } from '../../../application/policy/ports/policy-counters.port';
import type { PolicyLimit } from '../../../domain/policy/policy';
import { changeRows, selectRow, selectRows, sql } from '../sql';
import { TAKE_ROW, takeBack, takeWithin } from '../tables/rate-limits';

/** What sets a policy limit's counters apart from every other limit's in rate_limits. */
const KEY_PREFIX = 'policy:';

/**
 * The policy's limits on the `rate_limits` rows every other limit uses (so that every replica
 * counts the same calls, and the sweep forgets ended windows), each counted by takeWithin: a
 * call is counted only while its window has room, so racing calls never take more than `max`.
 * A call counted against some limits and refused by a later one is taken back from those.
 */
@Injectable()
export class DatabasePolicyCounters extends PolicyCounters {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async take(limits: readonly PolicyLimit[]): Promise<LimitReached | null> {
    const counted: PolicyLimit[] = [];
    for (const limit of limits) {
      const row = await selectRow(this.dataSource, takeWithin(KEY_PREFIX + limit.key, limit.windowMs, limit.max), TAKE_ROW);
      if (!row) throw new Error('rate_limits upsert returned no row');
      if (!row.taken) {
        for (const taken of counted) {
          await changeRows(this.dataSource, takeBack(KEY_PREFIX + taken.key));
        }
        return { limit, retryAfterSeconds: Math.max(0, row.expires_in ?? 0) };
      }
      counted.push(limit);
    }
    return null;
  }

  async full(limits: readonly PolicyLimit[]): Promise<LimitReached | null> {
    if (limits.length === 0) return null;
    const rows = await selectRows(
      this.dataSource,
      sql`SELECT key, hits, ceil(extract(epoch FROM window_ends - clock_timestamp()))::int AS expires_in FROM rate_limits
          WHERE key = ANY(${limits.map((limit) => KEY_PREFIX + limit.key)}::text[]) AND window_ends > clock_timestamp()`,
      COUNT_ROW,
    );
    for (const limit of limits) {
      const row = rows.find((candidate) => candidate.key === KEY_PREFIX + limit.key);
      if (row && row.hits >= limit.max) return { limit, retryAfterSeconds: Math.max(0, row.expires_in) };
    }
    return null;
  }
}

const COUNT_ROW = z.object({ key: z.string(), hits: z.number(), expires_in: z.number() });
