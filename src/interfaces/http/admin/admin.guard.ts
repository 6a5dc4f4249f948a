import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { Principal } from '../../../application/identity/ports/access-token-service.port';
import { ApiError } from '../shared/api-error';

/**
 * For /admin routes, after BearerAuthGuard, which read the principal's role from the
 * account now: a role the operator revoked is refused on the next request, whatever token
 * the account still holds.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const principal = context.switchToHttp().getRequest<Request & { principal?: Principal }>().principal;
    if (principal?.role !== 'admin') {
      throw new ApiError(403, 'AUTH.FORBIDDEN', 'This is for admins only: your account does not hold the admin role');
    }
    return true;
  }
}
