import { Injectable } from '@nestjs/common';
import { InvalidCredentialsError } from '../../domain/identity/user';
import { type AccountView, toAccountView } from './account-view';
import { UserRepository } from './ports/user-repository.port';
import { budgetDay } from '../../domain/agent/token-budget';
import { TokenBudget } from '../agent/ports/token-budget.port';
import { Clock } from '../shared/ports/clock.port';

/** The account, with how much of today's chat budget it has used. */
export interface AccountWithBudget extends AccountView {
  readonly chatTokens: { readonly dailyLimit: number | null; readonly usedToday: number };
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
    const usedToday = this.budget.dailyLimit === null ? 0 : await this.budget.usedOn(user.id, budgetDay(this.clock.now()));
    return { ...toAccountView(user), chatTokens: { dailyLimit: this.budget.dailyLimit, usedToday } };
  }
}
