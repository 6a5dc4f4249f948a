import { Injectable } from '@nestjs/common';
import { OAuthGrantNotFoundError } from '../../../domain/identity/oauth';
import type { Scope } from '../../../domain/identity/scopes';
import { AuditLog, type ToolAuditEntry } from '../../audit/ports/audit-log.port';
import { Clock } from '../../shared/ports/clock.port';
import { auditedChange } from '../../audit/audited-change';
import { type OAuthGrant, OAuthStore } from './ports/oauth-store.port';

/** Why a grant ended: the person disconnected the app, the app revoked its refresh token, or a code or refresh token was replayed. */
export type GrantRevocationReason = 'person' | 'client' | 'authorization_code_reused' | 'refresh_token_reused';

/**
 * A person's grants to MCP clients ("connected apps"): given at the consent page, listed,
 * and revoked at once (every token of a grant is checked against the store on each
 * request). Consents, revocations and replayed codes or refresh tokens are audited (source
 * `account`) with the grant and the client, never a token, code or verifier.
 */
@Injectable()
export class OAuthGrants {
  constructor(
    private readonly store: OAuthStore,
    private readonly auditLog: AuditLog,
    private readonly clock: Clock,
  ) {}

  private get audit() {
    return { auditLog: this.auditLog, clock: this.clock };
  }

  list(userId: string): Promise<OAuthGrant[]> {
    return this.store.listGrants(userId);
  }

  /** The person's consent: their live grant to the client, created or widened to `scopes`. */
  async consent(userId: string, clientId: string, resource: string, scopes: readonly Scope[]): Promise<OAuthGrant> {
    const entry = this.entry(userId, 'grant_oauth_access', { clientId, resource, scopes: [...scopes] });
    return auditedChange(this.audit, entry, async (now) => {
      const { grant, created } = await this.store.upsertGrant(userId, clientId, resource, scopes, now);
      return {
        result: { grantId: grant.id, created, clientName: grant.client.registration.clientName, grantScopes: [...grant.scopes] },
        value: grant,
      };
    });
  }

  /** The person disconnects an app. @throws OAuthGrantNotFoundError */
  async revokeByPerson(userId: string, grantId: string): Promise<OAuthGrant> {
    const grant = await this.revoke(grantId, userId, 'person');
    if (!grant) throw new OAuthGrantNotFoundError();
    return grant;
  }

  /** A code or refresh token was used a second time: someone else holds a copy, so the grant ends (RFC 6749 §4.1.2, OAuth 2.1 §4.3.1). */
  async replayDetected(grantId: string, userId: string, what: 'authorization_code' | 'refresh_token'): Promise<void> {
    await this.auditLog.record(this.entry(userId, 'oauth_token_replayed', { grantId, what }), {
      status: 'rejected',
      ...(what === 'refresh_token'
        ? { errorCode: 'OAUTH.REFRESH_TOKEN_REUSED', errorMessage: 'A refresh token was used a second time, so its grant was revoked.' }
        : {
            errorCode: 'OAUTH.AUTHORIZATION_CODE_REUSED',
            errorMessage: 'An authorization code was used a second time, so its grant was revoked.',
          }),
      durationMs: 0,
    });
    await this.revoke(grantId, userId, what === 'refresh_token' ? 'refresh_token_reused' : 'authorization_code_reused');
  }

  /**
   * Ends the person's live grant and all its tokens.
   * @returns the grant as it was, or null when there was no such live grant (audited as rejected).
   */
  async revoke(grantId: string, userId: string, reason: GrantRevocationReason): Promise<OAuthGrant | null> {
    return auditedChange(this.audit, this.entry(userId, 'revoke_oauth_grant', { grantId, reason }), async (now) => {
      const grant = await this.store.revokeGrant(grantId, now, userId);
      if (!grant) throw new OAuthGrantNotFoundError();
      return { result: { clientId: grant.client.id, clientName: grant.client.registration.clientName }, value: grant };
    }).catch((error: unknown) => {
      if (error instanceof OAuthGrantNotFoundError) return null;
      throw error;
    });
  }

  private entry(userId: string, tool: string, args: Record<string, unknown>): ToolAuditEntry {
    return { source: 'account', actorId: userId, tool, arguments: args, securityEvents: [] };
  }
}
