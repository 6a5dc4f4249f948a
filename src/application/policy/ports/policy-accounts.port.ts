import type { Role } from '../../../domain/identity/user';

/**
 * What the policy asks about accounts: the accounts a policy names by email (a rule's `people`
 * are emails or account ids, and an email must be an account's before the policy is compiled,
 * unknownPeople), and a caller's role, which a call does not carry (read only when the policy
 * tests roles).
 */
export abstract class PolicyAccounts {
  /** Account ids by email, for those of `emails` (lowercase) that are an account's; one look-up for all of them. */
  abstract idsByEmail(emails: readonly string[]): Promise<ReadonlyMap<string, string>>;
  /** The account's role; null when there is no such account. */
  abstract roleOf(userId: string): Promise<Role | null>;
}
