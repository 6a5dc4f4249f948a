import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { TokenUsage } from '../../../application/agent/ports/language-model.port';
import {
  type DailyBudgetLimits,
  type DailyBudgetUse,
  TokenBudget,
  type TokenReservation,
} from '../../../application/agent/ports/token-budget.port';
import { costOf, type TokenPricing } from '../../../domain/agent/pricing';
import { budgetDay } from '../../../domain/agent/token-budget';

/**
 * TokenBudget on token_ledger. A reservation is one INSERT … ON CONFLICT DO UPDATE … WHERE
 * both budgets still cover it: racing turns serialise on the person's row for the day, so
 * the ledger never passes a limit. Cost is counted at the configured prices.
 */
@Injectable()
export class TokenLedger extends TokenBudget {
  constructor(
    private readonly dataSource: DataSource,
    readonly limits: DailyBudgetLimits,
    private readonly pricing: TokenPricing | null,
  ) {
    super();
  }

  async reserve(userId: string, most: TokenUsage, now: Date): Promise<TokenReservation | null> {
    const day = budgetDay(now);
    const tokens = most.promptTokens + most.completionTokens;
    const cost = this.costOf(most);
    const rows = await this.dataSource.query<unknown[]>(
      `INSERT INTO token_ledger AS t (user_id, day, used, cost)
       SELECT $1, $2, $3, $4 WHERE ($5::bigint IS NULL OR $3 <= $5) AND ($6::numeric IS NULL OR $4 <= $6)
       ON CONFLICT (user_id, day) DO UPDATE SET used = t.used + $3, cost = t.cost + $4
         WHERE ($5::bigint IS NULL OR t.used + $3 <= $5) AND ($6::numeric IS NULL OR t.cost + $4 <= $6)
       RETURNING used`,
      [userId, day, tokens, cost, this.limits.tokens, this.limits.cost],
    );
    return rows.length === 1 ? { userId, day, tokens, cost } : null;
  }

  async settle(reservation: TokenReservation, used: TokenUsage): Promise<void> {
    const tokens = reservation.tokens - Math.min(used.promptTokens + used.completionTokens, reservation.tokens);
    const cost = reservation.cost - Math.min(this.costOf(used), reservation.cost);
    if (tokens === 0 && cost === 0) return;
    await this.dataSource.query(`UPDATE token_ledger SET used = used - $3, cost = cost - $4 WHERE user_id = $1 AND day = $2`, [
      reservation.userId,
      reservation.day,
      tokens,
      cost,
    ]);
  }

  async usedOn(userId: string, day: string): Promise<DailyBudgetUse> {
    const rows = await this.dataSource.query<{ used: string; cost: string }[]>(
      `SELECT used, cost FROM token_ledger WHERE user_id = $1 AND day = $2`,
      [userId, day],
    );
    return rows.length === 0 ? { tokens: 0, cost: 0 } : { tokens: Number(rows[0].used), cost: Number(rows[0].cost) };
  }

  private costOf(usage: TokenUsage): number {
    return this.pricing === null ? 0 : costOf(usage, this.pricing);
  }
}
