import { Injectable } from '@nestjs/common';
import { InvalidCredentialsError } from '../../domain/identity/user';
import { type Amount, centsValue, decimalText } from '../../domain/agent/money';
import { budgetDay, budgetMonth } from '../../domain/agent/token-budget';
import { type AccountView, toAccountView } from './account-view';
import { UserRepository } from './ports/user-repository.port';
import { MonthlyBudgets } from '../agent/ports/monthly-budgets.port';
import { TokenBudget } from '../agent/ports/token-budget.port';
import { monthSpend } from '../budgets/month-spend';
import { Clock } from '../shared/ports/clock.port';

/** A person's month as they read it: amounts rounded half up to the cent. */
export interface MonthBudgetView {
  readonly month: string;
  readonly currency: string;
  /** Spent this month, calls under way included. */
  readonly spent: number;
  /** Their budget for the month (their own, else the default); null: none. */
  readonly budget: number | null;
  /** The whole percent of it used, rounded down; null without a budget. */
  readonly percent: number | null;
}

/** The account, with its chat budgets and what it used of them today and this month. */
export interface AccountWithBudget extends AccountView {
  readonly chatBudget: {
    readonly tokens: { readonly dailyLimit: number | null; readonly usedToday: number };
    readonly cost: { readonly dailyLimit: number | null; readonly usedToday: number };
    /** Null when calls are not priced (no LLM_PRICES). */
    readonly month: MonthBudgetView | null;
  };
}

@Injectable()
export class GetAccountUseCase {
  constructor(
    private readonly users: UserRepository,
    private readonly budget: TokenBudget,
    private readonly months: MonthlyBudgets,
    private readonly clock: Clock,
  ) {}

  /** @throws InvalidCredentialsError when the account behind a valid token is gone. */
  async execute(input: { userId: string }): Promise<AccountWithBudget> {
    const user = await this.users.findById(input.userId);
    if (!user) throw new InvalidCredentialsError();
    const now = this.clock.now();
    const { limits } = this.budget;
    const daily = limits.tokens !== null || limits.cost !== null;
    const used = daily ? await this.budget.usedOn(user.id, budgetDay(now)) : { tokens: 0, cost: 0n };
    return {
      ...toAccountView(user),
      chatBudget: {
        tokens: { dailyLimit: limits.tokens, usedToday: used.tokens },
        cost: { dailyLimit: limits.cost === null ? null : exact(limits.cost), usedToday: exact(used.cost) },
        month: await this.month(user.id, now),
      },
    };
  }

  private async month(userId: string, now: Date): Promise<MonthBudgetView | null> {
    const { currency } = this.months;
    const use = currency === null ? null : await this.months.use(userId, budgetMonth(now));
    if (currency === null || use === null) return null;
    const spend = monthSpend(use, currency);
    return {
      month: spend.month,
      currency,
      spent: centsValue(spend.spent + spend.reserved),
      budget: spend.budget === null ? null : centsValue(spend.budget),
      percent: spend.percent,
    };
  }
}

function exact(amount: Amount): number {
  return Number(decimalText(amount));
}
