import type { Role } from '../../../domain/identity/user';

/** What the policy may ask about a caller that a call does not carry: read only when the policy tests it. */
export abstract class PolicyCallers {
  /** The account's role; null when there is no such account. */
  abstract roleOf(userId: string): Promise<Role | null>;
}
