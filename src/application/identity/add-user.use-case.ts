import { Injectable } from '@nestjs/common';
import type { AccountView } from './account-view';
import { createAccount } from './create-account';
import { PasswordHasher } from './ports/password-hasher.port';
import { UserRepository } from './ports/user-repository.port';

/** The operator creates an account (user role), whether or not sign-up is open. */
@Injectable()
export class AddUserUseCase {
  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
  ) {}

  execute(input: { email: string; password: string }): Promise<AccountView> {
    return createAccount(this.users, this.hasher, input);
  }
}
