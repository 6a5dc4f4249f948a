import { DomainValidationError } from './domain-error';

export const PAGE_LIMIT_MAX = 100;

export class InvalidCursorError extends DomainValidationError {
  readonly code = 'VALIDATION.INVALID_CURSOR';
  constructor() {
    super('cursor', 'cursor is not one this API returned');
  }
}
