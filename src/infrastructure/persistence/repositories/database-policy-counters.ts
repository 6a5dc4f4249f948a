import { createHash } from 'node:crypto';
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
 * A limit's row: a digest of its key (the rule's definition and whose counter it is, limitKey),
 * which may be longer than an index entry holds.
 */
function rowKey(limit: PolicyLimit): string {
  return KEY_PREFIX + createHash('sha256').update(limit.key).digest('hex');
}

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
      const row = await selectRow(this.dataSource, takeWithin(rowKey(limit), limit.windowMs, limit.max), TAKE_ROW);
      if (!row) throw new Error('rate_limits upsert returned no row');
      if (!row.taken) {
        for (const taken of counted) {
          await changeRows(this.dataSource, takeBack(rowKey(taken)));
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
          WHERE key = ANY(${limits.map(rowKey)}::text[]) AND window_ends > clock_timestamp()`,
      COUNT_ROW,
    );
    for (const limit of limits) {
      const row = rows.find((candidate) => candidate.key === rowKey(limit));
      if (row && row.hits >= limit.max) return { limit, retryAfterSeconds: Math.max(0, row.expires_in) };
    }
    return null;
  }
}

const COUNT_ROW = z.object({ key: z.string(), hits: z.number(), expires_in: z.number() });
