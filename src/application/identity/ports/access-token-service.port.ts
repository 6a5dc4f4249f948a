import type { Role } from '../../../domain/identity/user';

export interface Principal {
  readonly userId: string;
  readonly email: string;
  readonly role: Role;
}

export interface IssuedToken {
  readonly accessToken: string;
  /** Lifetime in seconds. */
  readonly expiresIn: number;
}

export abstract class AccessTokenService {
  abstract issue(principal: Principal): Promise<IssuedToken>;
  /** @returns null for any token that is malformed, forged or expired. */
  abstract verify(token: string): Promise<Principal | null>;
}
