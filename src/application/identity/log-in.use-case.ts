import { Injectable } from '@nestjs/common';
import { InvalidCredentialsError, normalizeEmail } from '../../domain/identity/user';
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
    // The role in the token is informative: BearerAuthGuard reads the account's role on every request.
    const token = await this.tokens.issue({
      userId: user.id,
      email: user.email,
      role: user.role,
      credentialsVersion: user.credentialsVersion,
    });
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
