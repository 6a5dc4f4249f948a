import { Injectable } from '@nestjs/common';
import { SignUpClosedError } from '../../domain/identity/user';
import type { AccountView } from './account-view';
import { createAccount } from './create-account';
import { IdentitySettings } from './identity-settings';
import { PasswordHasher } from './ports/password-hasher.port';
import { UserRepository } from './ports/user-repository.port';

/** Self-service sign-up: always the user role, and only while SIGN_UP is open. */
@Injectable()
export class RegisterUserUseCase {
  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly settings: IdentitySettings,
  ) {}

  async execute(input: { email: string; password: string }): Promise<AccountView> {
    if (this.settings.signUp === 'closed') throw new SignUpClosedError();
    return createAccount(this.users, this.hasher, input);
  }
}
