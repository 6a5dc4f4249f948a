import { type CanActivate, createParamDecorator, type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AccessTokenService, type Principal } from '../../../application/identity/ports/access-token-service.port';
import { UserRepository } from '../../../application/identity/ports/user-repository.port';
import { assertCurrentCredentials } from '../../../domain/identity/user';
import { isUuid } from '../../../domain/shared/uuid';
import { ApiError } from '../shared/api-error';

type AuthenticatedRequest = Request & { principal?: Principal };

/**
 * Accepts only a valid `Authorization: Bearer <token>` of an account that exists now, issued
 * under the account's current credentials version, and puts that account on the request as
 * the principal. A token outlives what it was issued for (a reset database, a revoked role,
 * a changed password), so the account, its role and its credentials version are read on
 * every request, not taken from the token.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly tokens: AccessTokenService,
    private readonly users: UserRepository,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const [scheme, token] = (req.headers.authorization ?? '').split(' ');
    if (scheme?.toLowerCase() !== 'bearer' || !token) {
      throw new ApiError(401, 'AUTH.UNAUTHENTICATED', 'A bearer token is required: Authorization: Bearer <token>');
    }
    const claimed = await this.tokens.verify(token);
    if (!claimed) {
      throw new ApiError(401, 'AUTH.UNAUTHENTICATED', 'The bearer token is invalid or has expired');
    }
    const user = isUuid(claimed.userId) ? await this.users.findById(claimed.userId) : null;
    if (!user) {
      throw new ApiError(401, 'AUTH.UNAUTHENTICATED', 'The account for this token no longer exists');
    }
    // 401 AUTH.UNAUTHENTICATED "The password was changed: sign in again" for a token from before a password change.
    assertCurrentCredentials(user, claimed.credentialsVersion);
    req.principal = { userId: user.id, email: user.email, role: user.role, credentialsVersion: user.credentialsVersion };
    return true;
  }
}

/**
 * For routes under `/api/:userId`: the path must name the authenticated user. Runs after
 * BearerAuthGuard, so an anonymous caller learns nothing about the path.
 */
@Injectable()
export class OwnUserGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const userId = req.params.userId;
    if (!isUuid(userId)) {
      throw new ApiError(400, 'VALIDATION.FAILED', 'userId must be a UUID');
    }
    if (userId.toLowerCase() !== req.principal?.userId.toLowerCase()) {
      throw new ApiError(403, 'AUTH.FORBIDDEN', 'This token may only access its own user');
    }
    return true;
  }
}

export const CurrentPrincipal = createParamDecorator((_: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a route without BearerAuthGuard');
  return principal;
});
