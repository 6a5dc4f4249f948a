import type { PolicyLimit } from '../../../domain/policy/policy';

/** A limit a call would cross, and how long until its window ends. */
export interface LimitReached {
  readonly limit: PolicyLimit;
  readonly retryAfterSeconds: number;
}

/**
 * The counters of the policy's `limit` rules, kept where every replica counts the same calls
 * (the database), in fixed windows that open at their first call.
 */
export abstract class PolicyCounters {
  /**
   * Counts one call against each limit. When one of them would be crossed, the call is counted
   * against none of them (what it counted is taken back) and that limit is returned.
   */
  abstract take(limits: readonly PolicyLimit[]): Promise<LimitReached | null>;

  /**
   * The first limit whose window is full now, counting nothing: what a dry run asks, so that
   * the person is not asked about a call that could not run. Advisory: `take` decides.
   */
  abstract full(limits: readonly PolicyLimit[]): Promise<LimitReached | null>;
}
