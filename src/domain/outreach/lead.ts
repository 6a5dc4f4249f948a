import { DomainValidationError } from '../shared/domain-error';
import { emailAddress } from '../shared/email-address';
import { strippedImportedText } from '../shared/untrusted-text-normalisation';

export const LEAD_STATUSES = ['new', 'in_progress', 'done', 'do_not_contact'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

export const LEAD_NAME_MAX_LENGTH = 200;

export interface Lead {
  readonly id: string;
  readonly campaignId: string;
  readonly name: string;
  /** Always `https://www.linkedin.com/in/<slug>/`. */
  readonly linkedinUrl: string;
  /** Canonical (emailAddress(…).address in shared/email-address.ts): what is sent to. */
  readonly email: string | null;
  readonly status: LeadStatus;
  readonly createdAt: Date;
}

export interface LeadDraft {
  readonly name: string;
  readonly linkedinUrl: string;
  readonly email: string | null;
}

export class InvalidLeadError extends DomainValidationError {
  readonly code = 'OUTREACH.INVALID_LEAD';
}

const PROFILE_URL = /^https:\/\/(?:www\.)?linkedin\.com\/in\/([A-Za-z0-9\-_%]{3,100})\/?$/;
/** The canonical form of a LinkedIn profile URL, or null when `raw` is not one. */
export function canonicalProfileUrl(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const match = PROFILE_URL.exec(raw.trim());
  return match ? `https://www.linkedin.com/in/${match[1].toLowerCase()}/` : null;
}

/** The slug of a canonical profile URL. */
export function profileSlug(profileUrl: string): string {
  return profileUrl.slice('https://www.linkedin.com/in/'.length, -1);
}

/**
 * A lead as imported (a CSV row or an item of a JSON list). The name is stored without the
 * control, bidi and invisible characters `strippedImportedText` removes (a lead list is often
 * scraped: the characters are stripped, not refused); the address fields are refused when
 * they hold one (emailAddress, canonicalProfileUrl).
 */
export function draftLead(input: { name?: unknown; linkedinUrl?: unknown; email?: unknown }): LeadDraft {
  const name = typeof input.name === 'string' ? strippedImportedText(input.name) : '';
  if (name.length === 0 || name.length > LEAD_NAME_MAX_LENGTH) {
    throw new InvalidLeadError('name', `name must be 1 to ${LEAD_NAME_MAX_LENGTH} characters long`);
  }
  const linkedinUrl = canonicalProfileUrl(input.linkedinUrl);
  if (!linkedinUrl) {
    throw new InvalidLeadError('linkedinUrl', 'linkedinUrl must look like https://www.linkedin.com/in/<name>/');
  }
  const rawEmail = typeof input.email === 'string' ? input.email.trim() : input.email;
  if (rawEmail === undefined || rawEmail === null || rawEmail === '') return { name, linkedinUrl, email: null };
  const email = emailAddress(rawEmail)?.address;
  if (!email) throw new InvalidLeadError('email', 'email must be a valid email address');
  return { name, linkedinUrl, email };
}
