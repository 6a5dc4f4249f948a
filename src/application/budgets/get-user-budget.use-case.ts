import { Injectable } from '@nestjs/common';
import type { Amount } from '../../domain/agent/money';
import { BudgetAccountNotFoundError } from '../../domain/agent/monthly-budget';
import { budgetMonth } from '../../domain/agent/token-budget';
import { MonthlyBudgets } from '../agent/ports/monthly-budgets.port';
import { Clock } from '../shared/ports/clock.port';
import { type MonthSpend, monthSpend } from './month-spend';

/** A person's monthly budget as an admin reads it: their own, the default, and this month's spend; null spend when calls are not priced. */
export interface UserBudget {
  readonly userId: string;
  readonly own: Amount | null;
  readonly default: Amount | null;
  readonly month: MonthSpend | null;
}

@Injectable()
export class GetUserBudgetUseCase {
  constructor(
    private readonly budgets: MonthlyBudgets,
    private readonly clock: Clock,
  ) {}

  /** @throws BudgetAccountNotFoundError */
  async execute(input: { userId: string }): Promise<UserBudget> {
    const use = await this.budgets.use(input.userId, budgetMonth(this.clock.now()));
    if (use === null) throw new BudgetAccountNotFoundError();
    const { currency } = this.budgets;
    return {
      userId: input.userId,
      own: use.own,
      default: this.budgets.defaultBudget,
      month: currency === null ? null : monthSpend(use, currency),
    };
  }
}
