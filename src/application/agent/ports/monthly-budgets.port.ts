import type { Amount } from '../../../domain/agent/money';

/** A person's month: what they spent (settled), what calls in flight hold (reserved), and their budget. */
export interface MonthlyBudgetUse {
  /** The UTC month, `2026-12`. */
  readonly month: string;
  readonly spent: Amount;
  readonly reserved: Amount;
  /** The budget in force for them: their own, else the default; null: none. */
  readonly budget: Amount | null;
  /** The budget an admin set for them alone; null: the default applies. */
  readonly own: Amount | null;
}

/**
 * Each person's monthly budget in money (month_ledger, and their own budget on their account):
 * read by the policy (a rule's `budgetUsed`), by the person (`GET /auth/me`) and by admins,
 * who may set a person's own.
 */
export abstract class MonthlyBudgets {
  /** The prices' currency; null when calls are not priced, and there is no budget in money. */
  abstract readonly currency: string | null;
  /** CHAT_MONTHLY_BUDGET: the budget of whoever has none of their own. */
  abstract readonly defaultBudget: Amount | null;

  /** The person's month as the ledger holds it now (zeros when nothing was counted yet); null when there is no such account. */
  abstract use(userId: string, month: string): Promise<MonthlyBudgetUse | null>;
  /** Sets (or with null, removes) the person's own budget. @returns false when there is no such account. */
  abstract setOwn(userId: string, monthly: Amount | null): Promise<boolean>;
}
