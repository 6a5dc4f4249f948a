import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import {
  type BudgetCharge,
  type BudgetRefusal,
  type DailyBudgetLimits,
  type DailyBudgetUse,
  TokenBudget,
  type TokenReservation,
} from '../../../application/agent/ports/token-budget.port';
import { type Amount, centsValue } from '../../../domain/agent/money';
import { budgetDay, budgetMonth } from '../../../domain/agent/token-budget';
import { selectRow, selectRows, type Sql, sql, inTransaction, run } from '../sql';
import { AMOUNT, budgetInForce, money } from '../tables/month-ledger';
import { enqueueNotification } from '../tables/notifications';

const RESERVED_ROW = z.object({ reserved: z.number() });
/** bigint and numeric come back as text, so that no precision is lost on the way. */
const USE_ROW = z.object({ used: z.coerce.number(), cost: AMOUNT });
const ALERT_ROW = z.object({ percent: z.number(), spent: AMOUNT, budget: AMOUNT });

/** What counting money needs: each person's budget by default, the currency, and the thresholds of the policy in force. */
export interface LedgerMoney {
  readonly defaultMonthly: Amount | null;
  readonly currency: string;
  /** The `budgetUsed` percentages the rules of the policy in force test (PolicyProvider). */
  readonly thresholds: () => readonly number[];
}

/** Thrown inside the transaction to undo the month's reservation when the day's is refused. */
class DayRefused extends Error {}

/**
 * TokenBudget on two ledgers. The day (token_ledger, when a daily budget is set): a
 * reservation is one INSERT … ON CONFLICT DO UPDATE … WHERE both daily budgets still cover it.
 * The month (month_ledger, whenever calls are priced): one INSERT … ON CONFLICT DO UPDATE …
 * WHERE spent + reserved + this call still fit the person's budget in force (their own, else
 * the default), read in the same statement. Racing turns, on any replica, serialise on the
 * person's row, so a ledger never passes its budget. With both, the two run in one
 * transaction, month first, and a refusal of either takes nothing.
 *
 * Settling the month moves the call from reserved to spent at its real cost (never clamped:
 * the month's spend is exactly the price table applied to the tokens recorded); when that
 * reaches a threshold of the policy in force, a budget_alerts row is inserted if the month has
 * none for it, and only then, in the same transaction, the person's notification.
 */
@Injectable()
export class TokenLedger extends TokenBudget {
  readonly countsMoney: boolean;

  constructor(
    private readonly dataSource: DataSource,
    readonly limits: DailyBudgetLimits,
    private readonly money: LedgerMoney | null,
  ) {
    super();
    this.countsMoney = money !== null;
  }

  async reserve(userId: string, most: BudgetCharge, now: Date): Promise<TokenReservation | BudgetRefusal> {
    const daily = this.limits.tokens !== null || this.limits.cost !== null;
    const reservation: TokenReservation = {
      userId,
      day: daily ? budgetDay(now) : null,
      month: this.money ? budgetMonth(now) : null,
      tokens: most.tokens,
      cost: most.cost,
    };
    if (reservation.month === null) {
      return (await this.reserveDay(this.dataSource, reservation)) ? reservation : { spent: 'day' };
    }
    if (reservation.day === null) {
      return (await this.reserveMonth(this.dataSource, reservation)) ? reservation : { spent: 'month' };
    }
    try {
      return await inTransaction(this.dataSource, async (tx) => {
        if (!(await this.reserveMonth(tx, reservation))) return { spent: 'month' } as const;
        if (!(await this.reserveDay(tx, reservation))) throw new DayRefused();
        return reservation;
      });
    } catch (error) {
      if (error instanceof DayRefused) return { spent: 'day' };
      throw error;
    }
  }

  async settle(reservation: TokenReservation, used: BudgetCharge, now: Date): Promise<void> {
    const thresholds = this.money && reservation.month !== null ? this.money.thresholds() : [];
    if (thresholds.length === 0) {
      await this.settleDay(this.dataSource, reservation, used);
      await this.settleMonth(this.dataSource, reservation, used);
      return;
    }
    await inTransaction(this.dataSource, async (tx) => {
      await this.settleDay(tx, reservation, used);
      await this.settleMonthAndAlert(tx, reservation, used, thresholds, now);
    });
  }

  async usedOn(userId: string, day: string): Promise<DailyBudgetUse> {
    const row = await selectRow(
      this.dataSource,
      sql`SELECT used, cost FROM token_ledger WHERE user_id = ${userId} AND day = ${day}`,
      USE_ROW,
    );
    return row === null ? { tokens: 0, cost: 0n } : { tokens: row.used, cost: row.cost };
  }

  private async reserveDay(db: Sql, reservation: TokenReservation): Promise<boolean> {
    // Each value is its own parameter, so each is cast where the statement needs its type.
    const [t, c] = [sql`${reservation.tokens}::bigint`, money(reservation.cost)];
    const [maxTokens, maxCost] = [sql`${this.limits.tokens}::bigint`, money(this.limits.cost)];
    const rows = await selectRows(
      db,
      sql`INSERT INTO token_ledger AS t (user_id, day, used, cost)
          SELECT ${reservation.userId}, ${reservation.day}, ${t}, ${c}
            WHERE (${maxTokens} IS NULL OR ${t} <= ${maxTokens}) AND (${maxCost} IS NULL OR ${c} <= ${maxCost})
          ON CONFLICT (user_id, day) DO UPDATE SET used = t.used + ${t}, cost = t.cost + ${c}
            WHERE (${maxTokens} IS NULL OR t.used + ${t} <= ${maxTokens}) AND (${maxCost} IS NULL OR t.cost + ${c} <= ${maxCost})
          RETURNING 1 AS reserved`,
      RESERVED_ROW,
    );
    return rows.length === 1;
  }

  private async reserveMonth(db: Sql, reservation: TokenReservation): Promise<boolean> {
    const c = money(reservation.cost);
    const budget = budgetInForce(reservation.userId, this.money!.defaultMonthly);
    const rows = await selectRows(
      db,
      sql`WITH b AS (SELECT ${budget} AS budget)
          INSERT INTO month_ledger AS m (user_id, month, reserved)
          SELECT ${reservation.userId}, ${reservation.month}, ${c} FROM b WHERE b.budget IS NULL OR ${c} <= b.budget
          ON CONFLICT (user_id, month) DO UPDATE SET reserved = m.reserved + ${c}
            WHERE (SELECT budget FROM b) IS NULL OR m.spent + m.reserved + ${c} <= (SELECT budget FROM b)
          RETURNING 1 AS reserved`,
      RESERVED_ROW,
    );
    return rows.length === 1;
  }

  /** The day counts at most what was reserved (a reservation is an upper bound of the tokens: promptTokensAtMost). */
  private async settleDay(db: Sql, reservation: TokenReservation, used: BudgetCharge): Promise<void> {
    if (reservation.day === null) return;
    const tokens = reservation.tokens - Math.min(used.tokens, reservation.tokens);
    const cost = reservation.cost - (used.cost < reservation.cost ? used.cost : reservation.cost);
    if (tokens === 0 && cost === 0n) return;
    await run(
      db,
      sql`UPDATE token_ledger SET used = used - ${tokens}, cost = cost - ${money(cost)}
          WHERE user_id = ${reservation.userId} AND day = ${reservation.day}`,
    );
  }

  private async settleMonth(db: Sql, reservation: TokenReservation, used: BudgetCharge): Promise<void> {
    if (reservation.month === null) return;
    await run(
      db,
      sql`UPDATE month_ledger SET spent = spent + ${money(used.cost)}, reserved = reserved - ${money(reservation.cost)}
          WHERE user_id = ${reservation.userId} AND month = ${reservation.month}`,
    );
  }

  /** Settles the month, and notifies each threshold the spend reached that the month had not reached before. */
  private async settleMonthAndAlert(
    tx: Sql,
    reservation: TokenReservation,
    used: BudgetCharge,
    thresholds: readonly number[],
    now: Date,
  ): Promise<void> {
    const { userId, month } = reservation;
    const budget = budgetInForce(userId, this.money!.defaultMonthly);
    const reached = await selectRows(
      tx,
      sql`WITH m AS (UPDATE month_ledger SET spent = spent + ${money(used.cost)}, reserved = reserved - ${money(reservation.cost)}
                     WHERE user_id = ${userId} AND month = ${month} RETURNING spent),
               b AS (SELECT ${budget} AS budget)
          INSERT INTO budget_alerts AS a (user_id, month, percent, created_at)
          SELECT ${userId}, ${month}, t.percent, ${now} FROM m, b, unnest(${[...thresholds]}::int[]) AS t(percent)
            WHERE b.budget IS NOT NULL AND m.spent * 100 >= b.budget * t.percent
          ON CONFLICT DO NOTHING
          RETURNING a.percent, (SELECT spent FROM m)::text AS spent, (SELECT budget FROM b)::text AS budget`,
      ALERT_ROW,
    );
    for (const alert of reached) {
      await enqueueNotification(tx, {
        recipientId: userId,
        event: 'budget.threshold',
        subject: { kind: 'budget', month: month! },
        facts: { percent: alert.percent, spent: centsValue(alert.spent), budget: centsValue(alert.budget), currency: this.money!.currency },
        at: now,
      });
    }
  }
}
