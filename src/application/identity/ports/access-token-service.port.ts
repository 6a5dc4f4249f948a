import type { Scope } from '../../../domain/identity/scopes';
import type { Role } from '../../../domain/identity/user';

/**
 * What authenticated a request: the console's signed-in session (a JWT from /auth/login),
 * a personal access token, or an OAuth access token of a grant an MCP client holds.
 */
export type Credential =
  | {
      readonly kind: 'session';
      /** When the person typed their password: a renewed token keeps it, and renewal ends SESSION_MAX_AGE after it. */
      readonly signedInAt: Date;
    }
  | { readonly kind: 'personal_token'; readonly tokenId: string }
  | { readonly kind: 'oauth'; readonly grantId: string; readonly clientId: string };

export interface Principal {
  readonly userId: string;
  readonly email: string;
  readonly role: Role;
  /** The account's credentials version the token was issued under (User.credentialsVersion). */
  readonly credentialsVersion: number;
}

/** A principal as the bearer guard puts it on a request: who, by what, allowed to do what. */
export interface AuthenticatedPrincipal extends Principal {
  readonly credential: Credential;
  /** Every scope for a session; the token's or grant's own otherwise. */
  readonly scopes: readonly Scope[];
  /**
   * Set when the guard did not read the account because the route's handler does, in the
   * statement it opens with (a session on a route marked AccountCheckedByHandler): the
   * handler must pass it on. Email and role are then the token's claims, not read.
   */
  readonly accountCheck?: AccountCheck;
}

/** A session's account check left to a handler: the credentials version its token was issued under. */
export interface AccountCheck {
  readonly credentialsVersion: number;
}

export interface IssuedToken {
  readonly accessToken: string;
  /** Lifetime in seconds. */
  readonly expiresIn: number;
}

/** What a session token says besides its account: when the sign-in it descends from happened. */
export interface SessionClaims extends Principal {
  readonly signedInAt: Date;
}

/** A renewal's terms: the sign-in it carries on, and a lifetime shorter than the usual one (the session's cap). */
export interface RenewalTerms {
  readonly signedInAt: Date;
  readonly expiresInSeconds: number;
}

export abstract class AccessTokenService {
  /** A token for a sign-in now, of the configured lifetime; with `renewal`, one that carries on an earlier sign-in. */
  abstract issue(principal: Principal, renewal?: RenewalTerms): Promise<IssuedToken>;
  /**
   * A token issued before credentials versions existed carries none and reads as version 0; one
   * issued before sign-in times were kept reads as signed in when it was issued.
   * @returns null for any token that is malformed, forged or expired.
   */
  abstract verify(token: string): Promise<SessionClaims | null>;
}
