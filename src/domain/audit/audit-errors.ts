import { DomainError, DomainValidationError } from '../shared/domain-error';

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

/** A proof asked for a position or tree size the log cannot prove: `field` names which. */
export class InvalidProofRequestError extends DomainValidationError {
  readonly code = 'VALIDATION.INVALID_PROOF_REQUEST';
}

/**
 * The stored Merkle tree does not give a checkpoint's signed root: its tiles, or the chain
 * under them, were changed outside Bridle. A full verify names the checkpoint.
 */
export class AuditTreeMismatchError extends DomainError {
  readonly code = 'AUDIT.TREE_MISMATCH';
  readonly kind = 'conflict' as const;
  constructor() {
    super("The audit log's Merkle tree does not match its signed checkpoint: the log was changed outside Bridle. Run a full verify.");
  }
}

/**
 * A receipt asked for a row no signed checkpoint covers yet. The sealer writes one every
 * AUDIT_CHECKPOINT_ROWS links or AUDIT_CHECKPOINT_MINUTES, whichever comes first; asking
 * writes none.
 */
export class AuditReceiptNotYetError extends DomainError {
  readonly code = 'AUDIT.RECEIPT_NOT_YET';
  readonly kind = 'conflict' as const;
  constructor(readonly detail: { readonly position: number | null; readonly latestCheckpoint: number | null }) {
    super(
      detail.position === null
        ? 'This row is not linked into the chain yet (normally within a second). Ask again shortly.'
        : `This row (chain position ${detail.position}) is not under a signed checkpoint yet` +
            (detail.latestCheckpoint === null ? '' : ` (the newest covers ${detail.latestCheckpoint})`) +
            '. The next checkpoint is written after the configured number of rows or minutes, whichever comes first; ask again then.',
    );
  }
}
