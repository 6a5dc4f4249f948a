import { HttpException } from '@nestjs/common';

/** An HTTP-level failure (not a domain rule) with a stable error code. */
export class ApiError extends HttpException {
  constructor(
    status: number,
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, status, options);
  }
}
