/**
 * The accounts a policy names by email: a rule's `people` are emails or account ids, and an
 * email must be an account's before the policy is compiled (unknownPeople).
 */
export abstract class PolicyAccounts {
  /** Account ids by email, for those of `emails` (lowercase) that are an account's; one look-up for all of them. */
  abstract idsByEmail(emails: readonly string[]): Promise<ReadonlyMap<string, string>>;
}
