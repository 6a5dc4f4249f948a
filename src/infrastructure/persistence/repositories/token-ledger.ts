import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { TokenBudget, type TokenReservation } from '../../../application/agent/ports/token-budget.port';
import { budgetDay } from '../../../domain/agent/token-budget';

/**
 * TokenBudget on token_ledger. A reservation is one INSERT … ON CONFLICT DO UPDATE … WHERE
 * used + tokens <= limit: racing turns serialise on the person's row for the day, so the
 * ledger never passes the limit.
 */
@Injectable()
export class TokenLedger extends TokenBudget {
  constructor(
    private readonly dataSource: DataSource,
    readonly dailyLimit: number | null,
  ) {
    super();
  }

  async reserve(userId: string, tokens: number, now: Date): Promise<TokenReservation | null> {
    const day = budgetDay(now);
    if (this.dailyLimit === null) return { userId, day, tokens: 0 };
    if (tokens > this.dailyLimit) return null;
    const rows = await this.dataSource.query<unknown[]>(
      `INSERT INTO token_ledger AS t (user_id, day, used) VALUES ($1, $2, $3)
       ON CONFLICT (user_id, day) DO UPDATE SET used = t.used + $3 WHERE t.used + $3 <= $4
       RETURNING used`,
      [userId, day, tokens, this.dailyLimit],
    );
    return rows.length === 1 ? { userId, day, tokens } : null;
  }

  async settle(reservation: TokenReservation, usedTokens: number): Promise<void> {
    if (this.dailyLimit === null) return;
    const refund = reservation.tokens - Math.min(usedTokens, reservation.tokens);
    if (refund === 0) return;
    await this.dataSource.query(`UPDATE token_ledger SET used = used - $3 WHERE user_id = $1 AND day = $2`, [
      reservation.userId,
      reservation.day,
      refund,
    ]);
  }

  async usedOn(userId: string, day: string): Promise<number> {
    const rows = await this.dataSource.query<{ used: string }[]>(`SELECT used FROM token_ledger WHERE user_id = $1 AND day = $2`, [
      userId,
      day,
    ]);
    return rows.length === 0 ? 0 : Number(rows[0].used);
  }
}
