import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RateCounter } from '../../../application/shared/ports/rate-counter.port';
import { selectRow } from '../sql';
import { TAKE_ROW, takeWithin } from '../tables/rate-limits';

/**
 * RateCounter on the `rate_limits` rows every other limit uses (takeWithin), so that every
 * replica counts the same calls and the sweep forgets ended windows. A key is stored as a
 * digest: it may name a host, longer than an index entry should be.
 */
@Injectable()
export class DatabaseRateCounter extends RateCounter {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async take(key: string, windowMs: number, max: number): Promise<boolean> {
    const rowKey = `counter:${createHash('sha256').update(key).digest('hex')}`;
    const row = await selectRow(this.dataSource, takeWithin(rowKey, windowMs, max), TAKE_ROW);
    if (!row) throw new Error('rate_limits upsert returned no row');
    return row.taken;
  }
}
