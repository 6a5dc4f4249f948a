import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { MonthlyBudgets, type MonthlyBudgetUse } from '../../../application/agent/ports/monthly-budgets.port';
import type { Amount } from '../../../domain/agent/money';
import { exists, selectRow, sql } from '../sql';
import { AMOUNT, money } from '../tables/month-ledger';

const MONTH_ROW = z.object({ own: AMOUNT.nullable(), spent: AMOUNT.nullable(), reserved: AMOUNT.nullable() });

/** MonthlyBudgets on month_ledger and users.monthly_budget (TokenLedger writes the ledger). */
export class PostgresMonthlyBudgets extends MonthlyBudgets {
  constructor(
    private readonly dataSource: DataSource,
    readonly currency: string | null,
    readonly defaultBudget: Amount | null,
  ) {
    super();
  }

  async use(userId: string, month: string): Promise<MonthlyBudgetUse | null> {
    const row = await selectRow(
      this.dataSource,
      sql`SELECT u.monthly_budget AS own, l.spent, l.reserved
          FROM users u LEFT JOIN month_ledger l ON l.user_id = u.id AND l.month = ${month}
          WHERE u.id = ${userId}`,
      MONTH_ROW,
    );
    if (row === null) return null;
    return { month, spent: row.spent ?? 0n, reserved: row.reserved ?? 0n, own: row.own, budget: row.own ?? this.defaultBudget };
  }

  setOwn(userId: string, monthly: Amount | null): Promise<boolean> {
    return exists(this.dataSource, sql`UPDATE users SET monthly_budget = ${money(monthly)} WHERE id = ${userId} RETURNING id`);
  }
}
