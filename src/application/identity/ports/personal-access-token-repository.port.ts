import type { PersonalAccessToken } from '../../../domain/identity/personal-access-token';
import type { Scope } from '../../../domain/identity/scopes';
import type { User } from '../../../domain/identity/user';

export interface NewPersonalAccessToken {
  readonly userId: string;
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly hash: string;
  readonly hint: string;
  readonly expiresAt: Date;
}

export abstract class PersonalAccessTokenRepository {
  /**
   * Inserts the token unless the user already holds `limit` active ones (counted under a
   * lock on the user's row, so two racing creations cannot both pass).
   * @returns null when the limit is reached.
   */
  abstract create(token: NewPersonalAccessToken, limit: number, now: Date): Promise<PersonalAccessToken | null>;
  /** Newest first, revoked and expired ones included (the person sees what existed). */
  abstract listByUser(userId: string): Promise<PersonalAccessToken[]>;
  /**
   * The active token with this hash and its owner, in one indexed read: it runs on every
   * request a token makes. Null when unknown, revoked or expired.
   */
  abstract findActiveByHash(hash: string, now: Date): Promise<{ token: PersonalAccessToken; user: User } | null>;
  /** @returns the token as revoked; null when the user has no such token or it was already revoked. */
  abstract revoke(userId: string, tokenId: string, now: Date): Promise<PersonalAccessToken | null>;
  /** @returns the address of the use before, as it was stored (null for a first use). */
  abstract recordUse(tokenId: string, address: string, now: Date): Promise<{ previousAddress: string | null }>;
}
