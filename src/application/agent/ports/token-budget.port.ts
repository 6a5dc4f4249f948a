import type { TokenUsage } from './language-model.port';

/** What one model call holds of the person's day until what it used is known. */
export interface TokenReservation {
  readonly userId: string;
  readonly day: string;
  readonly tokens: number;
  readonly cost: number;
}

/** A person's daily budgets: tokens, and cost when prices are set; null: no such budget. */
export interface DailyBudgetLimits {
  readonly tokens: number | null;
  readonly cost: number | null;
}

export interface DailyBudgetUse {
  readonly tokens: number;
  readonly cost: number;
}

/**
 * Each person's daily budget for the chat, on a ledger: a model call first reserves the
 * most it can use (refused when the day's budget cannot cover it), then settles to what the
 * provider reported. Exact under concurrency: reserving is one conditional update.
 */
export abstract class TokenBudget {
  abstract readonly limits: DailyBudgetLimits;

  get enabled(): boolean {
    return this.limits.tokens !== null || this.limits.cost !== null;
  }

  /** Only when enabled. @returns the reservation of `most`, or null when a budget cannot cover it (nothing was taken). */
  abstract reserve(userId: string, most: TokenUsage, now: Date): Promise<TokenReservation | null>;
  /** Replaces the reservation with what was used (never more than was reserved: see promptTokensAtMost). */
  abstract settle(reservation: TokenReservation, used: TokenUsage): Promise<void>;
  abstract usedOn(userId: string, day: string): Promise<DailyBudgetUse>;
}
