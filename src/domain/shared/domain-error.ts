/**
 * What kind of failure a domain error is. Adapters translate the kind (HTTP status,
 * tool error, audit status); the domain never knows about transports.
 */
export type DomainErrorKind = 'validation' | 'unauthenticated' | 'forbidden' | 'not_found' | 'conflict';

export abstract class DomainError extends Error {
  /** Stable, machine-readable identifier such as `TODO.TASK_NOT_FOUND`. */
  abstract readonly code: string;
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
