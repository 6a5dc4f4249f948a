/** Tokens held for one model call until what it used is known. */
export interface TokenReservation {
  readonly userId: string;
  readonly day: string;
  readonly tokens: number;
}

/**
 * Each person's daily token budget for the chat, on a ledger: a model call first reserves
 * the most it can use (refused when the day's budget cannot cover it), then settles to what
 * the provider reported. Exact under concurrency: reserving is one conditional update.
 */
export abstract class TokenBudget {
  /** Tokens per person per UTC day; null when budgets are off. */
  abstract readonly dailyLimit: number | null;
  /** @returns the reservation, or null when the budget cannot cover `tokens` (nothing was taken). */
  abstract reserve(userId: string, tokens: number, now: Date): Promise<TokenReservation | null>;
  /** Replaces the reservation with what was used (never more than was reserved: see promptTokensAtMost). */
  abstract settle(reservation: TokenReservation, usedTokens: number): Promise<void>;
  abstract usedOn(userId: string, day: string): Promise<number>;
}
