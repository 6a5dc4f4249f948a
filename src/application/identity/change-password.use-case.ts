import { Injectable } from '@nestjs/common';
import {
  assertAcceptablePassword,
  assertCurrentCredentials,
  CredentialsChangedError,
  InvalidCredentialsError,
  WrongCurrentPasswordError,
} from '../../domain/identity/user';
import type { LogInResult } from './log-in.use-case';
import { AccessTokenService } from './ports/access-token-service.port';
import { PasswordHasher } from './ports/password-hasher.port';
import { UserRepository } from './ports/user-repository.port';

export interface ChangePasswordInput {
  readonly userId: string;
  /** The credentials version of the token the request came with. */
  readonly credentialsVersion: number;
  readonly currentPassword: string;
  readonly newPassword: string;
}

/**
 * A signed-in person replaces their password. The new hash and the next credentials version
 * are stored together, so every token issued before stops working at its next request; the
 * caller gets a fresh token of the new version and stays signed in. Neither password is
 * logged or returned.
 */
@Injectable()
export class ChangePasswordUseCase {
  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly tokens: AccessTokenService,
  ) {}

  /**
   * @throws InvalidPasswordError (newPassword), WrongCurrentPasswordError, CredentialsChangedError
   *   (the token is older than the password, or another change won a race), InvalidCredentialsError
   *   (the account is gone)
   */
  async execute(input: ChangePasswordInput): Promise<LogInResult> {
    assertAcceptablePassword(input.newPassword, 'newPassword');
    const user = await this.users.findById(input.userId);
    if (!user) throw new InvalidCredentialsError();
    assertCurrentCredentials(user, input.credentialsVersion);
    if (!(await this.hasher.verify(input.currentPassword, user.passwordHash))) {
      throw new WrongCurrentPasswordError();
    }
    const changed = await this.users.changePassword(user.id, await this.hasher.hash(input.newPassword), user.credentialsVersion);
    if (!changed) throw new CredentialsChangedError();
    const token = await this.tokens.issue({
      userId: changed.id,
      email: changed.email,
      role: changed.role,
      credentialsVersion: changed.credentialsVersion,
    });
    return { ...token, userId: changed.id };
  }
}
