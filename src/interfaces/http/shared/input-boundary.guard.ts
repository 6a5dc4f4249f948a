import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { describeInputProblem } from '../../../domain/shared/untrusted-input';
import { ApiError } from './api-error';
import { requestInputProblem } from './request-input';

/**
 * The one input boundary: every path parameter, query parameter and body passes it before
 * any pipe or DTO reads it (a global guard runs before every other guard and pipe). It
 * refuses NUL bytes and lone surrogates, nesting past the depth limit, prototype keys and
 * repeated query parameters, naming the field. Type and range checks stay with the DTOs.
 * The OAuth endpoints, which the MCP SDK serves outside Nest's routing, pass the same
 * check (requestInputProblem) in oauthBoundary.
 */
@Injectable()
export class InputBoundaryGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const problem = requestInputProblem(context.switchToHttp().getRequest<Request>());
    if (problem) throw new ApiError(400, 'VALIDATION.FAILED', describeInputProblem(problem));
    return true;
  }
}
