import type { Amount } from '../../../domain/agent/money';

/** What a model call may use, or used: its tokens, and their cost at the price table (0 when calls are not priced). */
export interface BudgetCharge {
  readonly tokens: number;
  readonly cost: Amount;
}

/** What one model call holds of the person's day and month until what it used is known. */
export interface TokenReservation {
  readonly userId: string;
  /** The UTC day it holds on token_ledger; null when there is no daily budget. */
  readonly day: string | null;
  /** The UTC month it holds on month_ledger (`2026-12`); null when calls are not priced. */
  readonly month: string | null;
  readonly tokens: number;
  readonly cost: Amount;
}

/** A reservation refused: which budget could not cover it. Nothing was taken. */
export interface BudgetRefusal {
  readonly spent: 'day' | 'month';
}

/** A person's daily budgets: tokens, and cost when prices are set; null: no such budget. */
export interface DailyBudgetLimits {
  readonly tokens: number | null;
  readonly cost: Amount | null;
}

export interface DailyBudgetUse {
  readonly tokens: number;
  readonly cost: Amount;
}

/**
 * Each person's chat budgets, on ledgers: a model call first reserves the most it can use on
 * the day (token_ledger, when a daily budget is set) and on the month (month_ledger, whenever
 * calls are priced: the month's spend is counted with or without a monthly budget), and is
 * refused when a budget cannot cover it; it then settles to what the provider reported.
 * Exact under concurrency, across replicas: each ledger row is changed by one conditional
 * statement, and the day's and the month's reservations commit together or not at all.
 */
export abstract class TokenBudget {
  abstract readonly limits: DailyBudgetLimits;
  /** Whether calls are priced, so that each person's spend is counted by month. */
  abstract readonly countsMoney: boolean;

  get enabled(): boolean {
    return this.limits.tokens !== null || this.limits.cost !== null || this.countsMoney;
  }

  /** Only when enabled. @returns the reservation of `most`, or which budget cannot cover it (then nothing was taken). */
  abstract reserve(userId: string, most: BudgetCharge, now: Date): Promise<TokenReservation | BudgetRefusal>;
  /**
   * Replaces the reservation with what was used (never more than was reserved: see
   * promptTokensAtMost). When the month's spend reaches a threshold of the policy in force
   * for the first time in the month, the notification is written with it.
   */
  abstract settle(reservation: TokenReservation, used: BudgetCharge, now: Date): Promise<void>;
  abstract usedOn(userId: string, day: string): Promise<DailyBudgetUse>;
}

export function isRefusal(reserved: TokenReservation | BudgetRefusal): reserved is BudgetRefusal {
  return 'spent' in reserved;
}
