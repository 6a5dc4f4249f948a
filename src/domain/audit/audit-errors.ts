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

/**
 * An audit row that is not of a shape Bridle writes (a status or source it has no word for, a
 * policy it could not have recorded): the log was changed outside Bridle, by its tables' owner.
 * Reads refuse it as such rather than fail as a server fault; a full verify finds the row.
 */
export class AuditRowUnreadableError extends DomainError {
  readonly code = 'AUDIT.ROW_UNREADABLE';
  readonly kind = 'conflict' as const;
  constructor() {
    super('An audit row is not of a shape Bridle writes: the log was changed outside Bridle. Run a full verify to find it.');
  }
}
