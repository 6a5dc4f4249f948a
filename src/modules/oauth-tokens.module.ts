import { Module } from '@nestjs/common';
import { OAuthGrants } from '../application/identity/oauth/oauth-grants';
import { OAuthSettings } from '../application/identity/oauth/oauth-settings';
import { OAuthTokenIssuer } from '../application/identity/oauth/oauth-token-issuer';
import { OAuthStore } from '../application/identity/oauth/ports/oauth-store.port';
import { OAuthAccessTokenVerifier } from '../application/identity/ports/bearer-token-verifier.port';
import { AppConfig } from '../infrastructure/config/app-config';
import { PostgresOAuthStore } from '../infrastructure/persistence/repositories/postgres-oauth-store';
import { ProtectedResource } from '../interfaces/http/guards/bearer-challenge';
import { AccountsModule } from './accounts.module';
import { AuditLogModule } from './audit-log.module';

/**
 * OAuth grants and tokens: what the bearer guard asks about an OAuth access token on /mcp
 * (IdentityModule imports this module, so it cannot import IdentityModule back), and what
 * OAuthModule's authorization server issues them with.
 */
@Module({
  imports: [AccountsModule, AuditLogModule],
  providers: [
    { provide: OAuthStore, useClass: PostgresOAuthStore },
    {
      provide: OAuthSettings,
      useFactory: (config: AppConfig): OAuthSettings => ({
        resourceUrl: new ProtectedResource(config.publicBaseUrl).resourceUrl,
        consoleUrl: config.publicBaseUrl,
        // What the SDK's metadata says (createOAuthMetadata: the URL's href, so a bare origin gains a slash).
        issuer: new URL(config.publicBaseUrl).href,
        accessTokenTtlSeconds: config.oauth.accessTokenTtlSeconds,
        refreshTokenTtlDays: config.oauth.refreshTokenTtlDays,
      }),
      inject: [AppConfig],
    },
    OAuthGrants,
    OAuthTokenIssuer,
    { provide: OAuthAccessTokenVerifier, useExisting: OAuthTokenIssuer },
  ],
  exports: [OAuthAccessTokenVerifier, OAuthStore, OAuthSettings, OAuthGrants, OAuthTokenIssuer],
})
export class OAuthTokensModule {}
