import type { Scope } from '../../../domain/identity/scopes';
import type { Credential } from './access-token-service.port';

/**
 * Opaque bearer tokens say what they are by their prefix, so the guard knows which store to
 * ask and a leaked token is recognisable (secret scanners, our own redaction). Anything else
 * is read as the console's session JWT.
 */
export const TOKEN_PREFIXES = {
  personalAccess: 'bridle_pat_',
  oauthAccess: 'bridle_oat_',
  oauthRefresh: 'bridle_ort_',
} as const;

export interface VerifiedBearerToken {
  readonly userId: string;
  readonly scopes: readonly Scope[];
  readonly credential: Exclude<Credential, { kind: 'session' }>;
  /**
   * The resource (RFC 8707 audience) an OAuth access token was issued for, such as
   * `https://bridle.example/mcp`; null for a personal access token, which the person made for
   * any of their API.
   */
  readonly resource: string | null;
}

/** Where the bearer guard checks an OAuth access token: current, not revoked, its grant alive. */
export abstract class OAuthAccessTokenVerifier {
  /** @returns null for a token that is unknown, expired, revoked, or whose grant was revoked. */
  abstract verify(token: string): Promise<VerifiedBearerToken | null>;
}
