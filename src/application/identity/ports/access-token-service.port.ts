import type { Role } from '../../../domain/identity/user';

export interface Principal {
  readonly userId: string;
  readonly email: string;
  readonly role: Role;
  /** The account's credentials version the token was issued under (User.credentialsVersion). */
  readonly credentialsVersion: number;
}

export interface IssuedToken {
  readonly accessToken: string;
  /** Lifetime in seconds. */
  readonly expiresIn: number;
}

export abstract class AccessTokenService {
  abstract issue(principal: Principal): Promise<IssuedToken>;
  /**
   * A token issued before credentials versions existed carries none and reads as version 0.
   * @returns null for any token that is malformed, forged or expired.
   */
  abstract verify(token: string): Promise<Principal | null>;
}
