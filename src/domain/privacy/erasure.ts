import { DomainError, DomainValidationError } from '../shared/domain-error';

/**
 * Erasing a person's data (docs/decisions/0017-erasure-and-retention.md): an account, a lead
 * of a campaign, or every lead and mention of an email address. What is erased, field by field,
 * is listed in docs/record-keeping.md.
 */
export type ErasureKind = 'account' | 'lead' | 'email';

/** How many rows an erasure touched, per place: never the data itself. */
export interface ErasureCounts {
  /** Audit rows whose personal fields were emptied (their links and public fields stay). */
  readonly auditRows: number;
  /** Decision-log rows whose text was emptied. */
  readonly decisionLogs: number;
  /** Chat messages and conversation summaries whose text was emptied (other people's conversations that named them). */
  readonly messages: number;
  /** Leads deleted, with their tasks, actions and drafts. */
  readonly leads: number;
  /** Accounts deleted, with their conversations, campaigns, tasks and tokens. */
  readonly accounts: number;
  /** Other rows deleted: pending confirmations, MCP input requests, sandbox channel records. */
  readonly other: number;
  /**
   * Do-not-contact entries (on anyone's list) of the erased addresses and profile URLs, kept as
   * a keyed hash instead: the person is still never contacted, and the value is gone.
   */
  readonly doNotContact: number;
}

/** Who erases and when: stamped on every audit row it empties. */
export interface ErasureStamp {
  readonly by: string;
  readonly at: Date;
}

/**
 * The texts to look for in free text (audit arguments, messages), lower-cased: an email key,
 * a profile URL, a name. Shorter than 3 characters a text would match nearly anything, so it
 * is left out; the rows found by their ids (actor, task) are erased whatever their text.
 */
export function erasureNeedles(values: readonly (string | null | undefined)[]): string[] {
  const needles = new Set<string>();
  for (const value of values) {
    const needle = value?.trim().toLowerCase();
    if (needle !== undefined && needle.length >= 3) needles.add(needle);
  }
  return [...needles];
}

export class ErasureAccountNotFoundError extends DomainError {
  readonly code = 'ERASURE.ACCOUNT_NOT_FOUND';
  readonly kind = 'not_found' as const;
  constructor() {
    super('Account was not found');
  }
}

export class ErasureLeadNotFoundError extends DomainError {
  readonly code = 'ERASURE.LEAD_NOT_FOUND';
  readonly kind = 'not_found' as const;
  constructor() {
    super('Lead was not found in that campaign');
  }
}

export class ErasureInvalidEmailError extends DomainValidationError {
  readonly code = 'ERASURE.INVALID_EMAIL';
  constructor() {
    super('email', 'email must be an email address');
  }
}
