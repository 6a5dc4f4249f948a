import { Injectable } from '@nestjs/common';
import { assertAcceptablePassword, normalizeEmail, roleFor } from '../../domain/identity/user';
import { type AccountView, toAccountView } from './account-view';
import { IdentitySettings } from './identity-settings';
import { PasswordHasher } from './ports/password-hasher.port';
import { UserRepository } from './ports/user-repository.port';

@Injectable()
export class RegisterUserUseCase {
  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly settings: IdentitySettings,
  ) {}

  async execute(input: { email: string; password: string }): Promise<AccountView> {
    const email = normalizeEmail(input.email);
    assertAcceptablePassword(input.password);
    const user = await this.users.create({
      email,
      passwordHash: await this.hasher.hash(input.password),
      role: roleFor(email, this.settings.adminEmails),
    });
    return toAccountView(user);
  }
}
