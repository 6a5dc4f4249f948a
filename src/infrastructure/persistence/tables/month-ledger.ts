import { z } from 'zod';
import { type Amount, amountOf, decimalText } from '../../../domain/agent/money';
import { sql, type Statement } from '../sql';

/** numeric comes back as its exact text; read into an Amount. */
export const AMOUNT = z.string().transform((text, context) => {
  const amount = amountOf(text);
  if (amount === null) {
    context.addIssue({ code: 'custom', message: 'is not an amount with at most 12 decimals' });
    return z.NEVER;
  }
  return amount;
});

/** An amount as a numeric parameter. */
export function money(amount: Amount | null): Statement {
  return sql`${amount === null ? null : decimalText(amount)}::numeric`;
}

/**
 * The month's budget in force for a person, as a scalar subquery: their own
 * (users.monthly_budget), else `defaultBudget` (CHAT_MONTHLY_BUDGET); NULL when neither.
 */
export function budgetInForce(userId: string, defaultBudget: Amount | null): Statement {
  return sql`COALESCE((SELECT monthly_budget FROM users WHERE id = ${userId}), ${money(defaultBudget)})`;
}
