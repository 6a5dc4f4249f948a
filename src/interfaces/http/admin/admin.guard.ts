import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import { IdentitySettings } from '../../../application/identity/identity-settings';
import type { Principal } from '../../../application/identity/ports/access-token-service.port';
import { roleFor } from '../../../domain/identity/user';
import { ApiError } from '../shared/api-error';
import { ErrorResponseDto } from '../shared/error-response.dto';

/**
 * For /admin routes, after BearerAuthGuard: only a principal whose token carries the admin
 * role AND whose email is in ADMIN_EMAILS now passes, so taking an address out of
 * ADMIN_EMAILS (and restarting) ends its admin access at once, not at its next sign-in.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(private readonly settings: IdentitySettings) {}

  canActivate(context: ExecutionContext): boolean {
    const principal = context.switchToHttp().getRequest<Request & { principal?: Principal }>().principal;
    if (principal?.role !== 'admin' || roleFor(principal.email, this.settings.adminEmails) !== 'admin') {
      throw new ApiError(403, 'AUTH.FORBIDDEN', 'Only an admin may read the audit trail');
    }
    return true;
  }
}

/** Documents AdminGuard's refusal (the shared 403 text speaks of another user's data). */
export const ApiAdminOnly = ApiResponse({ status: 403, description: 'The token is not an admin’s', type: ErrorResponseDto });
