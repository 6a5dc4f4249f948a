import { DomainError, DomainValidationError } from '../shared/domain-error';
import { emailKey } from '../shared/email-address';
import { canonicalProfileUrl } from './lead';

export const DO_NOT_CONTACT_KINDS = ['email', 'linkedin'] as const;
export type DoNotContactKind = (typeof DO_NOT_CONTACT_KINDS)[number];

export interface DoNotContactEntry {
  readonly id: string;
  readonly kind: DoNotContactKind;
  /**
   * A canonical profile URL, or an email's comparison key (EmailAddress.key in shared/email-address.ts);
   * null once erased: an erasure keeps the entry as a keyed hash of its value, still checked, never shown.
   */
  readonly value: string | null;
  readonly createdAt: Date;
}

export class InvalidDoNotContactError extends DomainValidationError {
  readonly code = 'OUTREACH.INVALID_DO_NOT_CONTACT';
}

export class DoNotContactEntryNotFoundError extends DomainError {
  readonly code = 'OUTREACH.DO_NOT_CONTACT_NOT_FOUND';
  readonly kind = 'not_found' as const;
  constructor() {
    super('Do-not-contact entry was not found');
  }
}

/**
 * An email address or a LinkedIn profile URL, in the form it is compared in: a profile URL
 * canonical, an email as its key (its domain canonical, its local part lower-cased), so
 * `H@münchen.example` and `h@xn--mnchen-3ya.example` are one entry.
 */
export function doNotContactValue(raw: unknown): { kind: DoNotContactKind; value: string } {
  const profile = canonicalProfileUrl(raw);
  if (profile) return { kind: 'linkedin', value: profile };
  const email = emailKey(raw);
  if (email) return { kind: 'email', value: email };
  throw new InvalidDoNotContactError('value', 'value must be an email address or a https://www.linkedin.com/in/<name>/ URL');
}
