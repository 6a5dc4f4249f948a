import { Injectable } from '@nestjs/common';
import { InvalidCredentialsError } from '../../domain/identity/user';
import { type AccountView, toAccountView } from './account-view';
import { UserRepository } from './ports/user-repository.port';

@Injectable()
export class GetAccountUseCase {
  constructor(private readonly users: UserRepository) {}

  /** @throws InvalidCredentialsError when the account behind a valid token is gone. */
  async execute(input: { userId: string }): Promise<AccountView> {
    const user = await this.users.findById(input.userId);
    if (!user) throw new InvalidCredentialsError();
    return toAccountView(user);
  }
}
