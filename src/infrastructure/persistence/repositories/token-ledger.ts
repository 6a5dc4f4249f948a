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
import { changeRows, selectRow, selectRows, sql } from '../sql';
import { z } from 'zod';

const RESERVED_ROW = z.object({ reserved: z.number() });
/** bigint and numeric come back as text, so that no precision is lost on the way. */
const USE_ROW = z.object({ used: z.coerce.number(), cost: z.coerce.number() });

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
    // Each value is its own parameter, so each is cast where the statement needs its type.
    const [t, c] = [sql`${tokens}::bigint`, sql`${cost}::numeric`];
    const [maxTokens, maxCost] = [sql`${this.limits.tokens}::bigint`, sql`${this.limits.cost}::numeric`];
    const rows = await selectRows(
      this.dataSource,
      sql`INSERT INTO token_ledger AS t (user_id, day, used, cost)
          SELECT ${userId}, ${day}, ${t}, ${c} WHERE (${maxTokens} IS NULL OR ${t} <= ${maxTokens}) AND (${maxCost} IS NULL OR ${c} <= ${maxCost})
          ON CONFLICT (user_id, day) DO UPDATE SET used = t.used + ${t}, cost = t.cost + ${c}
            WHERE (${maxTokens} IS NULL OR t.used + ${t} <= ${maxTokens}) AND (${maxCost} IS NULL OR t.cost + ${c} <= ${maxCost})
          RETURNING 1 AS reserved`,
      RESERVED_ROW,
    );
    return rows.length === 1 ? { userId, day, tokens, cost } : null;
  }

  async settle(reservation: TokenReservation, used: TokenUsage): Promise<void> {
    const tokens = reservation.tokens - Math.min(used.promptTokens + used.completionTokens, reservation.tokens);
    const cost = reservation.cost - Math.min(this.costOf(used), reservation.cost);
    if (tokens === 0 && cost === 0) return;
    await changeRows(
      this.dataSource,
      sql`UPDATE token_ledger SET used = used - ${tokens}, cost = cost - ${cost} WHERE user_id = ${reservation.userId} AND day = ${reservation.day}`,
    );
  }

  async usedOn(userId: string, day: string): Promise<DailyBudgetUse> {
    const row = await selectRow(
      this.dataSource,
      sql`SELECT used, cost FROM token_ledger WHERE user_id = ${userId} AND day = ${day}`,
      USE_ROW,
    );
    return row === null ? { tokens: 0, cost: 0 } : { tokens: row.used, cost: row.cost };
  }

  private costOf(usage: TokenUsage): number {
    return this.pricing === null ? 0 : costOf(usage, this.pricing);
  }
}
