import { Injectable } from '@nestjs/common';
import { boundResource, OAuthRefusedError, refreshedScopes } from '../../../domain/identity/oauth';
import type { Scope } from '../../../domain/identity/scopes';
import { Clock } from '../../shared/ports/clock.port';
import { OAuthAccessTokenVerifier, TOKEN_PREFIXES, type VerifiedBearerToken } from '../ports/bearer-token-verifier.port';
import { OpaqueTokens } from '../ports/opaque-tokens.port';
import { OAuthGrants } from './oauth-grants';
import { OAuthSettings } from './oauth-settings';
import { OAuthStore, type StoredCode, type StoredToken, type TokenPair } from './ports/oauth-store.port';

export interface IssuedOAuthTokens {
  readonly accessToken: string;
  readonly refreshToken: string;
  /** The access token's lifetime, in seconds. */
  readonly expiresIn: number;
  readonly scopes: readonly Scope[];
}

const DAY_MS = 24 * 3600_000;
/**
 * A spent refresh token shown again by its client this soon after its use is a second tab, a
 * retry, or two replicas taking the same refresh at once, not a thief: it gets a fresh pair
 * under the same grant, and nothing is revoked. Later, it is a replay and ends the grant.
 */
export const REFRESH_REUSE_WINDOW_MS = 10_000;
/** A grant's last use is written at most this often: checking a token is otherwise a single read. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * The back half of the code flow, and every later request: codes become tokens, refresh
 * tokens rotate, access tokens are checked. Tokens are opaque, 256 random bits behind their
 * prefix, stored as SHA-256 hashes (OpaqueTokens), so the store knows a token only when it
 * is shown one. Rules:
 * - a code is used once; a second use ends the grant (RFC 6749 §4.1.2);
 * - a refresh token is used once: each use returns a new one; the old one shown again ends
 *   the grant (OAuth 2.1 §4.3.1, replay of a stolen token), unless within
 *   REFRESH_REUSE_WINDOW_MS of its use, which gets another new pair of the same lineage;
 * - a refresh may narrow the scopes, never widen them; a token is for Bridle's MCP resource only;
 * - an access token holds while it has not expired, was not revoked and its grant is live:
 *   read from the store on every request, so a revocation holds from the next one.
 */
@Injectable()
export class OAuthTokenIssuer extends OAuthAccessTokenVerifier {
  constructor(
    private readonly store: OAuthStore,
    private readonly grants: OAuthGrants,
    private readonly opaque: OpaqueTokens,
    private readonly settings: OAuthSettings,
    private readonly clock: Clock,
  ) {
    super();
  }

  /**
   * The PKCE challenge the code was issued under, for the SDK to check the verifier against.
   * A code shown again after its use ends the grant here already. @throws OAuthRefusedError
   */
  async challengeFor(clientId: string, code: string): Promise<string> {
    const stored = await this.liveCode(clientId, code);
    return stored.codeChallenge;
  }

  /**
   * Spends a code that reached Bridle in a URL (`GET /token?code=…`, or a query string on a
   * POST): a URL is kept by proxies, browsers and logs, so the code is no longer the client's
   * secret. Exchanging it afterwards is a replay, which ends the grant.
   */
  async discardExposedCode(code: string): Promise<void> {
    await this.store.useCode(this.opaque.hash(code), this.clock.now());
  }

  /** @throws OAuthRefusedError (invalid_grant, invalid_target) */
  async exchangeCode(
    clientId: string,
    code: string,
    redirectUri: string | undefined,
    resource: string | undefined,
  ): Promise<IssuedOAuthTokens> {
    const stored = await this.liveCode(clientId, code);
    // RFC 6749 §4.1.3: the redirect URI the code was sent to, when the client names one.
    if (redirectUri !== undefined && redirectUri !== stored.redirectUri) {
      throw new OAuthRefusedError('invalid_grant', 'redirect_uri does not match the authorization request');
    }
    if (boundResource(resource, this.settings.resourceUrl) !== stored.resource) {
      throw new OAuthRefusedError('invalid_target', 'resource does not match the authorization request');
    }
    const now = this.clock.now();
    if (!(await this.store.useCode(this.opaque.hash(code), now))) {
      // Two exchanges at once: the other one won, and this one is the replay.
      await this.grants.replayDetected(stored.grantId, stored.userId, 'authorization_code');
      throw new OAuthRefusedError('invalid_grant', 'The authorization code was already used');
    }
    const { pair, issued } = this.mintPair(stored.scopes, now);
    await this.store.issueTokens(stored.grantId, pair, now);
    return issued;
  }

  /** Rotation: the refresh token is spent, a new pair is returned. @throws OAuthRefusedError (invalid_grant, invalid_scope, invalid_target) */
  async refresh(
    clientId: string,
    refreshToken: string,
    scopes: readonly string[] | undefined,
    resource: string | undefined,
  ): Promise<IssuedOAuthTokens> {
    const hash = refreshToken.startsWith(TOKEN_PREFIXES.oauthRefresh) ? this.opaque.hash(refreshToken) : null;
    // Twice at most: a rotation lost to a use that began meanwhile reads the token again.
    for (let attempt = 0; ; attempt++) {
      const stored = hash === null ? null : await this.store.findToken(hash);
      if (!stored || stored.kind !== 'refresh' || stored.clientId !== clientId) {
        throw new OAuthRefusedError('invalid_grant', 'The refresh token is invalid');
      }
      const now = this.clock.now();
      const reused = stored.usedAt !== null;
      if (reused && stored.grantRevokedAt === null && now.getTime() - stored.usedAt.getTime() >= REFRESH_REUSE_WINDOW_MS) {
        return this.replayed(stored);
      }
      if (!isLive(stored, now)) throw new OAuthRefusedError('invalid_grant', 'The refresh token has expired or was revoked');
      if (boundResource(resource, this.settings.resourceUrl) !== stored.resource) {
        throw new OAuthRefusedError('invalid_target', 'resource does not match the grant');
      }
      const { pair, issued } = this.mintPair(refreshedScopes(stored.scopes, scopes), now);
      if (reused) {
        // The successors' secrets were never stored, so the reuse gets a pair of its own.
        await this.store.issueTokens(stored.grantId, pair, now, stored.id);
        return issued;
      }
      if (await this.store.rotateRefreshToken(stored.id, stored.grantId, pair, now)) return issued;
      if (attempt > 0) return this.replayed(stored);
    }
  }

  /** A spent refresh token shown again: the grant ends (OAuth 2.1 §4.3.1). @throws OAuthRefusedError always */
  private async replayed(stored: StoredToken): Promise<never> {
    await this.grants.replayDetected(stored.grantId, stored.userId, 'refresh_token');
    throw new OAuthRefusedError('invalid_grant', 'The refresh token was already used');
  }

  async verify(token: string): Promise<VerifiedBearerToken | null> {
    if (!token.startsWith(TOKEN_PREFIXES.oauthAccess)) return null;
    const stored = await this.store.findToken(this.opaque.hash(token));
    const now = this.clock.now();
    if (!stored || stored.kind !== 'access' || !isLive(stored, now)) return null;
    const lastUsed = stored.grantLastUsedAt?.getTime() ?? 0;
    if (now.getTime() - lastUsed >= LAST_USED_RESOLUTION_MS) await this.store.touchGrant(stored.grantId, now);
    return {
      userId: stored.userId,
      scopes: stored.scopes,
      credential: { kind: 'oauth', grantId: stored.grantId, clientId: stored.clientId },
      resource: stored.resource,
    };
  }

  /**
   * RFC 7009, by the client that holds the token: an access token ends alone; a refresh
   * token ends its grant (§2.1: the grant's access tokens with it). Anything else changes nothing.
   */
  async revokeByClient(clientId: string, token: string): Promise<void> {
    const stored = await this.store.findToken(this.opaque.hash(token));
    if (!stored || stored.clientId !== clientId || stored.revokedAt !== null) return;
    if (stored.kind === 'access') await this.store.revokeToken(stored.id, this.clock.now());
    else await this.grants.revoke(stored.grantId, stored.userId, 'client');
  }

  /** A code of this client's that has not expired. A used one is a replay: it ends the grant. */
  private async liveCode(clientId: string, code: string): Promise<StoredCode> {
    const stored = await this.store.findCode(this.opaque.hash(code));
    if (!stored || stored.clientId !== clientId) throw new OAuthRefusedError('invalid_grant', 'The authorization code is invalid');
    if (stored.usedAt !== null) {
      await this.grants.replayDetected(stored.grantId, stored.userId, 'authorization_code');
      throw new OAuthRefusedError('invalid_grant', 'The authorization code was already used');
    }
    if (stored.expiresAt.getTime() <= this.clock.now().getTime()) {
      throw new OAuthRefusedError('invalid_grant', 'The authorization code has expired');
    }
    return stored;
  }

  private mintPair(scopes: readonly Scope[], now: Date): { pair: TokenPair; issued: IssuedOAuthTokens } {
    const access = this.opaque.mint(TOKEN_PREFIXES.oauthAccess);
    const refresh = this.opaque.mint(TOKEN_PREFIXES.oauthRefresh);
    const { accessTokenTtlSeconds, refreshTokenTtlDays } = this.settings;
    return {
      pair: {
        accessHash: access.hash,
        accessExpiresAt: new Date(now.getTime() + accessTokenTtlSeconds * 1000),
        refreshHash: refresh.hash,
        refreshExpiresAt: new Date(now.getTime() + refreshTokenTtlDays * DAY_MS),
        scopes,
      },
      issued: { accessToken: access.secret, refreshToken: refresh.secret, expiresIn: accessTokenTtlSeconds, scopes },
    };
  }
}

function isLive(token: StoredToken, now: Date): boolean {
  return token.revokedAt === null && token.grantRevokedAt === null && token.expiresAt.getTime() > now.getTime();
}
