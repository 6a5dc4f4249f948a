import { Injectable } from '@nestjs/common';
import { InvalidCredentialsError, normalizeEmail, roleFor } from '../../domain/identity/user';
import { IdentitySettings } from './identity-settings';
import { AccessTokenService, type IssuedToken } from './ports/access-token-service.port';
import { PasswordHasher } from './ports/password-hasher.port';
import { UserRepository } from './ports/user-repository.port';

export interface LogInResult extends IssuedToken {
  readonly userId: string;
}

@Injectable()
export class LogInUseCase {
  /** Verified against when the email is unknown, so both failures take as long. */
  private decoyHash: Promise<string> | undefined;

  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly tokens: AccessTokenService,
    private readonly settings: IdentitySettings,
  ) {}

  async execute(input: { email: string; password: string }): Promise<LogInResult> {
    const email = this.emailOrNull(input.email);
    const user = email === null ? null : await this.users.findByEmail(email);
    if (!user) {
      this.decoyHash ??= this.hasher.hash('decoy password for unknown accounts');
      await this.hasher.verify(input.password, await this.decoyHash);
      throw new InvalidCredentialsError();
    }
    if (!(await this.hasher.verify(input.password, user.passwordHash))) {
      throw new InvalidCredentialsError();
    }
    const role = roleFor(user.email, this.settings.adminEmails);
    if (role !== user.role) await this.users.updateRole(user.id, role);
    const token = await this.tokens.issue({ userId: user.id, email: user.email, role });
    return { ...token, userId: user.id };
  }

  private emailOrNull(raw: string): string | null {
    try {
      return normalizeEmail(raw);
    } catch {
      return null;
    }
  }
}
