import type { Client } from 'pg';
import { SAMPLE_EVERY_MS } from './outreach-cycles-config';
import { CLK_TCK, sleep, statFields } from './support/processes';

// ---------------------------------------------------------------- CPU

export interface Cpu {
  /** utime + stime, ms. */
  readonly ms: number;
  /** stime, ms: in the kernel (for these processes mostly socket reads and writes). */
  readonly system: number;
}

/** The CPU time of one process so far, or undefined once it is gone. */
export function cpuOf(pid: number): Cpu | undefined {
  const fields = statFields(pid);
  if (!fields) return undefined;
  const [user, system] = [Number(fields[11]), Number(fields[12])].map((ticks) => (ticks * 1000) / CLK_TCK);
  return { ms: user + system, system };
}

export const NO_CPU: Cpu = { ms: 0, system: 0 };
export const minus = (a: Cpu, b: Cpu): Cpu => ({ ms: a.ms - b.ms, system: a.system - b.system });
export const plus = (a: Cpu, b: Cpu): Cpu => ({ ms: a.ms + b.ms, system: a.system + b.system });

/**
 * The CPU of every backend serving `database` (from pg_stat_activity, sampled every 100 ms so
 * that a backend which exits meanwhile is counted up to its last sample), from `begin()` on.
 */
export class BackendCpu {
  private readonly last = new Map<number, Cpu>();
  private readonly baseline = new Map<number, Cpu>();
  private begun = false;
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly admin: Client,
    private readonly database: string,
    private readonly excluded: () => readonly number[],
  ) {}

  start(): void {
    this.loop = (async () => {
      while (!this.stopped) {
        await this.sample();
        await sleep(SAMPLE_EVERY_MS);
      }
    })();
  }

  async sample(): Promise<void> {
    const { rows } = await this.admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1`, [this.database]);
    for (const { pid } of rows) {
      if (this.excluded().includes(pid)) continue;
      const cpu = cpuOf(pid);
      if (cpu === undefined) continue;
      // A backend first seen after begin() started within the window: all its CPU counts.
      if (!this.last.has(pid) && this.begun) this.baseline.set(pid, NO_CPU);
      this.last.set(pid, cpu);
    }
  }

  async begin(): Promise<void> {
    await this.sample();
    for (const [pid, ms] of this.last) this.baseline.set(pid, ms);
    this.begun = true;
  }

  /** CPU since begin(), and how many backends served. */
  async end(): Promise<{ cpu: Cpu; backends: number }> {
    await this.sample();
    this.stopped = true;
    await this.loop;
    let total = NO_CPU;
    for (const [pid, cpu] of this.last) {
      const baseline = this.baseline.get(pid);
      if (baseline) total = plus(total, minus(cpu, baseline));
    }
    return { cpu: total, backends: this.baseline.size };
  }
}

// ---------------------------------------------------------------- database statistics

export interface DatabaseStats {
  readonly commits: number;
  readonly rollbacks: number;
  readonly buffers: number;
  readonly rowsReturned: number;
  readonly rowsFetched: number;
  readonly rowsWritten: number;
  readonly tables: Record<string, { seqScans: number; seqRows: number; indexScans: number; indexRows: number }>;
}

export async function databaseStats(db: Client): Promise<DatabaseStats> {
  await db.query(`SELECT pg_stat_clear_snapshot()`);
  const { rows } = await db.query<Record<string, string>>(
    `SELECT xact_commit, xact_rollback, blks_hit + blks_read AS buffers, tup_returned, tup_fetched,
            tup_inserted + tup_updated + tup_deleted AS written
     FROM pg_stat_database WHERE datname = current_database()`,
  );
  const tables = await db.query<{
    relname: string;
    seq_scan: string;
    seq_tup_read: string;
    idx_scan: string | null;
    idx_tup_fetch: string | null;
  }>(`SELECT relname, seq_scan, seq_tup_read, idx_scan, idx_tup_fetch FROM pg_stat_user_tables`);
  return {
    commits: Number(rows[0].xact_commit),
    rollbacks: Number(rows[0].xact_rollback),
    buffers: Number(rows[0].buffers),
    rowsReturned: Number(rows[0].tup_returned),
    rowsFetched: Number(rows[0].tup_fetched),
    rowsWritten: Number(rows[0].written),
    tables: Object.fromEntries(
      tables.rows.map((row) => [
        row.relname,
        {
          seqScans: Number(row.seq_scan),
          seqRows: Number(row.seq_tup_read),
          indexScans: Number(row.idx_scan ?? 0),
          indexRows: Number(row.idx_tup_fetch ?? 0),
        },
      ]),
    ),
  };
}
