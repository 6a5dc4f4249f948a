import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { describeInputProblem, findInputProblem, type InputProblem, textProblem } from '../../../domain/shared/untrusted-input';
import { ApiError } from './api-error';

/**
 * The one input boundary: every path parameter, query parameter and body passes it before
 * any pipe or DTO reads it (a global guard runs before every other guard and pipe). It
 * refuses NUL bytes and lone surrogates, nesting past the depth limit, prototype keys and
 * repeated query parameters, naming the field. Type and range checks stay with the DTOs.
 */
@Injectable()
export class InputBoundaryGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const problem = inputProblemOf(context.switchToHttp().getRequest<Request>());
    if (problem) throw new ApiError(400, 'VALIDATION.FAILED', describeInputProblem(problem));
    return true;
  }
}

export function inputProblemOf(req: Pick<Request, 'params' | 'query' | 'body'>): InputProblem | null {
  for (const [name, value] of Object.entries(req.params ?? {})) {
    const problem = typeof value === 'string' ? textProblem(value) : null;
    if (problem) return { path: name, problem };
  }
  for (const [name, value] of Object.entries((req.query ?? {}) as Record<string, unknown>)) {
    if (Array.isArray(value)) return { path: name, problem: 'is given more than once' };
    const problem = findInputProblem({ [name]: value }, '');
    if (problem) return problem;
  }
  if (typeof req.body === 'string') {
    const problem = textProblem(req.body);
    return problem ? { path: 'body', problem } : null;
  }
  const problem = findInputProblem(req.body, '');
  return problem && { path: problem.path || 'body', problem: problem.problem };
}
