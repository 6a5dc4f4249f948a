import { Injectable } from '@nestjs/common';
import { InvalidCredentialsError } from '../../domain/identity/user';
import { type AccountView, toAccountView } from './account-view';
import { UserRepository } from './ports/user-repository.port';
import { budgetDay } from '../../domain/agent/token-budget';
import { TokenBudget } from '../agent/ports/token-budget.port';
import { Clock } from '../shared/ports/clock.port';

/** The account, with its daily chat budgets and what it used of them today. */
export interface AccountWithBudget extends AccountView {
  readonly chatBudget: {
    readonly tokens: { readonly dailyLimit: number | null; readonly usedToday: number };
    readonly cost: { readonly dailyLimit: number | null; readonly usedToday: number };
  };
}

@Injectable()
export class GetAccountUseCase {
  constructor(
    private readonly users: UserRepository,
    private readonly budget: TokenBudget,
    private readonly clock: Clock,
  ) {}

  /** @throws InvalidCredentialsError when the account behind a valid token is gone. */
  async execute(input: { userId: string }): Promise<AccountWithBudget> {
    const user = await this.users.findById(input.userId);
    if (!user) throw new InvalidCredentialsError();
    const { limits } = this.budget;
    const used = this.budget.enabled ? await this.budget.usedOn(user.id, budgetDay(this.clock.now())) : { tokens: 0, cost: 0 };
    return {
      ...toAccountView(user),
      chatBudget: {
        tokens: { dailyLimit: limits.tokens, usedToday: used.tokens },
        cost: { dailyLimit: limits.cost, usedToday: used.cost },
      },
    };
  }
}
