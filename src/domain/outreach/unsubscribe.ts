import { DomainError } from '../shared/domain-error';
import { isUuid } from '../shared/uuid';
import { emailKey } from '../shared/email-address';

/**
 * The one purpose an unsubscribe link serves, named first in what it signs, so that a
 * signature made for anything else (another kind of link) never reads as one.
 */
export const UNSUBSCRIBE_PURPOSE = 'unsubscribe';

/** Whom a link takes off whose list: the campaign's owner, the campaign the email came from, the recipient. */
export interface UnsubscribeSubject {
  readonly ownerId: string;
  readonly campaignId: string;
  /** The address's comparison key (emailKey in shared/email-address.ts), as the do-not-contact list keeps it. */
  readonly email: string;
}

/** Every unsubscribe link that is not one Bridle made (forged, altered, truncated, for another purpose, another key). */
export class UnsubscribeLinkInvalidError extends DomainError {
  readonly code = 'OUTREACH.UNSUBSCRIBE_LINK_INVALID';
  readonly kind = 'not_found' as const;
  constructor() {
    super('This unsubscribe link is not valid');
  }
}

/**
 * What an unsubscribe link signs, one canonical text per subject: its purpose, the owner, the
 * campaign and the address's key, one per line (none of them can hold a line break: ids are
 * UUIDs, and an address has no white space). Deterministic: the same email gets the same
 * link however often it is built, so a footer never differs between a send and its record.
 */
export function unsubscribePayload(subject: UnsubscribeSubject): string {
  const email = emailKey(subject.email);
  if (email === null) throw new Error('An unsubscribe link needs a valid email address');
  for (const id of [subject.ownerId, subject.campaignId]) {
    if (id.length === 0 || /\s/.test(id)) throw new Error('An unsubscribe link needs an owner and a campaign id');
  }
  return [UNSUBSCRIBE_PURPOSE, subject.ownerId, subject.campaignId, email].join('\n');
}

/**
 * The subject of a payload, or null unless it is what `unsubscribePayload` makes of it: the
 * purpose `unsubscribe`, lower-case UUIDs, an address, nothing more. The address is read to
 * its key again: a link sent before the key was the canonical form it is now (`jane@bücher.de`
 * then, `jane@xn--bcher-kva.de` now) still unsubscribes the address it was sent to.
 */
export function readUnsubscribePayload(payload: string): UnsubscribeSubject | null {
  const parts = payload.split('\n');
  if (parts.length !== 4) return null;
  const [purpose, ownerId, campaignId, email] = parts;
  if (purpose !== UNSUBSCRIBE_PURPOSE) return null;
  if (!isCanonicalUuid(ownerId) || !isCanonicalUuid(campaignId)) return null;
  const key = emailKey(email);
  return key === null ? null : { ownerId, campaignId, email: key };
}

function isCanonicalUuid(value: string): boolean {
  return isUuid(value) && value === value.toLowerCase();
}

/**
 * An outreach email's body as it goes out: the text, then a signature separator and the
 * unsubscribe link on a line of its own. Every email channel gets its body from here.
 */
export function withUnsubscribeFooter(body: string, unsubscribeUrl: string): string {
  return `${body.trimEnd()}\n\n-- \nTo get no more emails from this sender, unsubscribe here:\n${unsubscribeUrl}\n`;
}
