import { Injectable } from '@nestjs/common';
import {
  isActive,
  type NewTokenRequest,
  type PersonalAccessToken,
  TokenLimitReachedError,
  TokenNotFoundError,
  TOKENS_PER_USER,
  validateTokenRequest,
} from '../../domain/identity/personal-access-token';
import type { User } from '../../domain/identity/user';
import { AuditLog, type ToolAuditEntry } from '../audit/ports/audit-log.port';
import { Clock } from '../shared/ports/clock.port';
import { auditedChange } from '../audit/audited-change';
import { TOKEN_PREFIXES, type VerifiedBearerToken } from './ports/bearer-token-verifier.port';
import { OpaqueTokens } from './ports/opaque-tokens.port';
import { PersonalAccessTokenRepository } from './ports/personal-access-token-repository.port';

export interface CreatedToken {
  /** The secret, in this answer only: it is stored as a hash. */
  readonly secret: string;
  readonly token: PersonalAccessToken;
}

/** A use's last-used time is written at most this often per token, unless the address changes. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Personal access tokens: a person makes, lists and revokes them, and every request that
 * carries one is checked against the store, so a revocation holds from the next request.
 * Creation, revocation and a use from a client address the token was not last used from
 * are audited (source `account`), with the token's id and name, never its secret.
 */
@Injectable()
export class PersonalAccessTokens {
  constructor(
    private readonly repository: PersonalAccessTokenRepository,
    private readonly opaque: OpaqueTokens,
    private readonly auditLog: AuditLog,
    private readonly clock: Clock,
  ) {}

  private get audit() {
    return { auditLog: this.auditLog, clock: this.clock };
  }

  /** @throws InvalidTokenRequestError, TokenLimitReachedError */
  async create(userId: string, request: NewTokenRequest): Promise<CreatedToken> {
    const now = this.clock.now();
    const valid = validateTokenRequest(request, now);
    const { secret, hash } = this.opaque.mint(TOKEN_PREFIXES.personalAccess);
    const entry = this.entry(userId, 'create_access_token', {
      name: valid.name,
      scopes: [...valid.scopes],
      expiresAt: valid.expiresAt.toISOString(),
    });
    return auditedChange(this.audit, entry, async () => {
      const token = await this.repository.create({ userId, ...valid, hash, hint: secret.slice(-4) }, TOKENS_PER_USER, now);
      if (!token) throw new TokenLimitReachedError();
      return { result: { tokenId: token.id }, value: { secret, token } };
    });
  }

  list(userId: string): Promise<PersonalAccessToken[]> {
    return this.repository.listByUser(userId);
  }

  /** @throws TokenNotFoundError when the user has no such active token. */
  async revoke(userId: string, tokenId: string): Promise<PersonalAccessToken> {
    return auditedChange(this.audit, this.entry(userId, 'revoke_access_token', { tokenId }), async () => {
      const token = await this.repository.revoke(userId, tokenId, this.clock.now());
      if (!token) throw new TokenNotFoundError();
      return { result: { tokenId, name: token.name }, value: token };
    });
  }

  /**
   * @param address the client's address as the HTTP layer determines it (trusted proxies only).
   * @returns the token's grant and its owner, or null for a token that is unknown, revoked or expired.
   */
  async authenticate(secret: string, address: string): Promise<{ verified: VerifiedBearerToken; user: User } | null> {
    const now = this.clock.now();
    const found = await this.repository.findActiveByHash(this.opaque.hash(secret), now);
    if (!found || !isActive(found.token, now)) return null;
    const { token, user } = found;
    const stale = token.lastUsedAt === null || now.getTime() - token.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS;
    if (stale || token.lastUsedAddress !== address) {
      const { previousAddress } = await this.repository.recordUse(token.id, address, now);
      if (previousAddress !== address) {
        await this.auditLog.record(
          this.entry(user.id, 'access_token_new_address', { tokenId: token.id, name: token.name, address, previousAddress }),
          { status: 'succeeded', durationMs: 0 },
        );
      }
    }
    return {
      verified: { userId: user.id, scopes: token.scopes, credential: { kind: 'personal_token', tokenId: token.id }, resource: null },
      user,
    };
  }

  private entry(userId: string, tool: string, args: Record<string, unknown>): ToolAuditEntry {
    return { source: 'account', actorId: userId, tool, arguments: args, securityEvents: [] };
  }
}
