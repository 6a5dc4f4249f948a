import { DomainError, DomainValidationError } from '../shared/domain-error';
import { type Amount, moneyInWords, percentUsed } from './money';

/** A person's month as a rule reads it: what the ledger holds (spent and reserved) against their budget. */
export interface BudgetUsed {
  readonly used: Amount;
  readonly budget: Amount;
  readonly currency: string;
}

/** "You have used €8.12 of your €10.00 budget this month (81 %)." */
export function spendSentence(spend: BudgetUsed): string {
  const { used, budget, currency } = spend;
  return (
    `You have used ${moneyInWords(used, currency)} of your ${moneyInWords(budget, currency)} budget this month ` +
    `(${percentUsed(used, budget)} %).`
  );
}

/** The question a rule that asks the person before a chat turn puts: the spend, then "Go on?". */
export function spendQuestion(spend: BudgetUsed): string {
  return `${spendSentence(spend)} Go on?`;
}

/** An admin named an account that does not exist. */
export class BudgetAccountNotFoundError extends DomainError {
  readonly code = 'BUDGET.ACCOUNT_NOT_FOUND';
  readonly kind = 'not_found' as const;
  constructor() {
    super('No account has this id');
  }
}

/** A budget in money, where calls are not priced (no LLM_PRICES): nothing could count against it. */
export class BudgetNotPricedError extends DomainValidationError {
  readonly code = 'BUDGET.NOT_PRICED';
  constructor() {
    super('monthly', 'monthly: budgets in money need prices, and this server prices no model (LLM_PRICES is not set)');
  }
}

/** At most this much a month, in the prices' currency: a bound on a typing mistake. */
export const MONTHLY_BUDGET_MAX = 1_000_000_000;
