import { DomainError } from '../shared/domain-error';

export class AuditRowNotFoundError extends DomainError {
  readonly code = 'AUDIT.ROW_NOT_FOUND';
  readonly kind = 'not_found' as const;
  constructor() {
    super('No audit row has this sequence number');
  }
}

export class DecisionNotFoundError extends DomainError {
  readonly code = 'AUDIT.DECISION_NOT_FOUND';
  readonly kind = 'not_found' as const;
  constructor() {
    super('No decision has this id');
  }
}
