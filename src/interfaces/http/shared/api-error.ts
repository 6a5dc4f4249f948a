import { HttpException } from '@nestjs/common';
import type { ErrorCode } from './error-codes';

/** An HTTP-level failure (not a domain rule) with a stable error code; `retryAfterSeconds` becomes Retry-After. */
export class ApiError extends HttpException {
  readonly retryAfterSeconds: number | undefined;

  constructor(
    status: number,
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message, status, options);
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}
