import type { PolicyLimit } from './policy';

/** One limit's window as the simulation keeps it. */
interface Window {
  /** Epoch milliseconds. */
  readonly endsAt: number;
  hits: number;
}

/**
 * The policy's limit counters in memory, for replaying recorded calls in time order (a dry
 * run of a policy). They count as the database's do (DatabasePolicyCounters over takeWithin):
 * fixed windows that open at their first call and end `windowMs` later; a call is counted
 * only while its window has room; a call that would cross one of its limits is counted
 * against none of them (what it counted is taken back), and that limit is what stopped it.
 * The time is the call's own, never the clock's, so a replay depends on the calls alone.
 */
export class SimulatedLimits {
  private readonly windows = new Map<string, Window>();

  /** Counts a call made at `at` against `limits`; the limit it would cross, if any (then it counted nowhere). */
  take(limits: readonly PolicyLimit[], at: Date): PolicyLimit | null {
    const now = at.getTime();
    const counted: Window[] = [];
    for (const limit of limits) {
      const window = this.windows.get(limit.key);
      if (!window || window.endsAt <= now) {
        const opened = { endsAt: now + limit.windowMs, hits: 1 };
        this.windows.set(limit.key, opened);
        counted.push(opened);
        continue;
      }
      if (window.hits >= limit.max) {
        // As the database takes a refused call's counts back: one less, never below none.
        for (const taken of counted) taken.hits = Math.max(0, taken.hits - 1);
        return limit;
      }
      window.hits += 1;
      counted.push(window);
    }
    return null;
  }
}
