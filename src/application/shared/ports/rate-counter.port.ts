/**
 * Fixed-window counters shared by every replica: a call is counted only while its window has
 * room, so racing calls never take more than `max` in a window.
 */
export abstract class RateCounter {
  /** Counts one call on `key`. @returns false, counting nothing, when its window already holds `max`. */
  abstract take(key: string, windowMs: number, max: number): Promise<boolean>;
}
