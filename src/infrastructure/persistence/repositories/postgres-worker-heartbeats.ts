import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { WorkerHeartbeats } from '../../../application/outreach/ports/worker-heartbeats.port';
import { run, selectRow, sql } from '../sql';

const COUNT_ROW = z.object({ active: z.number() });

/** WorkerHeartbeats on outreach_workers: one upsert per heartbeat, one indexed count per question. */
@Injectable()
export class PostgresWorkerHeartbeats extends WorkerHeartbeats {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async beat(workerId: string, now: Date): Promise<void> {
    await run(
      this.dataSource,
      sql`INSERT INTO outreach_workers (id, started_at, heartbeat_at) VALUES (${workerId}, ${now}, ${now})
          ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`,
    );
  }

  async leave(workerId: string): Promise<void> {
    await run(this.dataSource, sql`DELETE FROM outreach_workers WHERE id = ${workerId}`);
  }

  async countActive(since: Date): Promise<number> {
    const row = await selectRow(
      this.dataSource,
      sql`SELECT count(*)::int AS active FROM outreach_workers WHERE heartbeat_at >= ${since}`,
      COUNT_ROW,
    );
    return row!.active;
  }
}
