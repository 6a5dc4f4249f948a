import type { Amount } from '../../domain/agent/money';
import { percentUsed } from '../../domain/agent/money';
import type { MonthlyBudgetUse } from '../agent/ports/monthly-budgets.port';

/** A person's month as they and admins read it: exact amounts, and the share of the budget used (spent and reserved). */
export interface MonthSpend {
  readonly month: string;
  readonly currency: string;
  readonly spent: Amount;
  readonly reserved: Amount;
  /** The budget in force: their own, else the default; null: none. */
  readonly budget: Amount | null;
  /** The whole percent of the budget spent or held, rounded down; null without a budget. */
  readonly percent: number | null;
}

export function monthSpend(use: MonthlyBudgetUse, currency: string): MonthSpend {
  const { month, spent, reserved, budget } = use;
  return { month, currency, spent, reserved, budget, percent: budget === null ? null : percentUsed(spent + reserved, budget) };
}
