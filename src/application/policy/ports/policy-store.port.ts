import type { PolicyDocument } from '../../../domain/policy/policy';
import type { Page } from '../../shared/page';

/** A policy as an admin stored it: version 1, 2, … (0 is the built-in policy, never stored). */
export interface StoredPolicyVersion {
  readonly version: number;
  /** The rules as readPolicy read them when they were stored: the emails as the admin wrote them. */
  readonly document: PolicyDocument;
  /**
   * The account each email the rules name was when the version was stored (email → account
   * id): how every process reads the rules' `people`, whatever has become of the accounts since.
   */
  readonly people: PolicyPeople;
  readonly authorId: string;
  /** The author's email when they stored it. */
  readonly authorEmail: string;
  /** Why, in the admin's words: 1 to POLICY_REASON_MAX_CHARS characters. */
  readonly reason: string;
  readonly createdAt: Date;
}

/** Account ids by the emails a version's rules name, resolved once, when it was stored. */
export type PolicyPeople = Readonly<Record<string, string>>;

/** A version as a list shows it: who, when, why, and how many rules, without the rules. */
export type PolicyVersionSummary = Omit<StoredPolicyVersion, 'document' | 'people'> & { readonly rules: number };

export interface NewPolicyVersion {
  readonly document: PolicyDocument;
  readonly people: PolicyPeople;
  readonly authorId: string;
  readonly authorEmail: string;
  readonly reason: string;
}

/** The most a version's reason may hold; the table checks it too. */
export const POLICY_REASON_MAX_CHARS = 500;

/** The policy's stored versions, newest in force. Versions are never changed or deleted. */
export abstract class PolicyStore {
  /** The newest version, or null when none was ever stored (the built-in policy is in force). */
  abstract latest(): Promise<StoredPolicyVersion | null>;
  /** The newest version's number, 0 when none: a cheap check for whether there is a newer one to read. */
  abstract latestVersion(): Promise<number>;
  abstract version(version: number): Promise<StoredPolicyVersion | null>;
  /**
   * Newest first.
   * @throws InvalidCursorError for a cursor this store did not hand out.
   */
  abstract list(limit: number, cursor: string | null): Promise<Page<PolicyVersionSummary>>;
  /**
   * Stores the next version: of saves that race, each gets its own number, one after the other,
   * and none is lost.
   */
  abstract save(version: NewPolicyVersion): Promise<StoredPolicyVersion>;
}
