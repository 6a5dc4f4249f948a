import { Injectable } from '@nestjs/common';
import { renewedLifetimeSeconds } from '../../domain/identity/session';
import { AccountGoneError, assertCurrentCredentials } from '../../domain/identity/user';
import { Clock } from '../shared/ports/clock.port';
import { SessionSettings } from './identity-settings';
import type { LogInResult } from './log-in.use-case';
import { AccessTokenService } from './ports/access-token-service.port';
import { UserRepository } from './ports/user-repository.port';

export interface RenewSessionInput {
  readonly userId: string;
  /** The credentials version of the session token the request came with. */
  readonly credentialsVersion: number;
  /** The sign-in that token descends from. */
  readonly signedInAt: Date;
}

/**
 * A signed-in person's still-valid session token is exchanged for a fresh one that carries on
 * the same sign-in: the console does it while the person is active, so the session does not
 * end under them. The account is read now, so a changed password or a deleted account ends
 * renewal like any request; and no renewal reaches past SESSION_MAX_AGE after the sign-in.
 */
@Injectable()
export class RenewSessionUseCase {
  constructor(
    private readonly users: UserRepository,
    private readonly tokens: AccessTokenService,
    private readonly settings: SessionSettings,
    private readonly clock: Clock,
  ) {}

  /** @throws SessionTooOldError, CredentialsChangedError, AccountGoneError */
  async execute(input: RenewSessionInput): Promise<LogInResult> {
    const user = await this.users.findById(input.userId);
    if (!user) throw new AccountGoneError();
    assertCurrentCredentials(user, input.credentialsVersion);
    const expiresInSeconds = renewedLifetimeSeconds({
      signedInAt: input.signedInAt,
      now: this.clock.now(),
      lifetimeSeconds: this.settings.tokenLifetimeSeconds,
      maxAgeSeconds: this.settings.maxAgeSeconds,
    });
    const token = await this.tokens.issue(
      { userId: user.id, email: user.email, role: user.role, credentialsVersion: user.credentialsVersion },
      { signedInAt: input.signedInAt, expiresInSeconds },
    );
    return { ...token, userId: user.id };
  }
}
