import type { DomainErrorCode } from './error-codes';

/**
 * What kind of failure a domain error is. Adapters translate the kind (HTTP status,
 * tool error, audit status); the domain never knows about transports.
 */
export type DomainErrorKind = 'validation' | 'unauthenticated' | 'forbidden' | 'not_found' | 'conflict' | 'rate_limited';

export abstract class DomainError extends Error {
  /** Stable, machine-readable identifier such as `TODO.TASK_NOT_FOUND`; listed in DOMAIN_ERROR_CODES. */
  abstract readonly code: DomainErrorCode;
  abstract readonly kind: DomainErrorKind;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Input that breaks a domain rule; `field` names the offending input. */
export abstract class DomainValidationError extends DomainError {
  readonly kind = 'validation' as const;

  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** More of something than a limit allows in its window; `limit` names the limit. */
export abstract class RateLimitedError extends DomainError {
  readonly kind = 'rate_limited' as const;

  constructor(
    readonly limit: string,
    /** Whole seconds until the limit lets the next one through. */
    readonly retryAfterSeconds: number,
    message: string,
  ) {
    super(message);
  }
}
