import { Logger, type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ClientMetadataDocuments, ClientMetadataSettings } from '../application/identity/oauth/client-metadata-documents';
import { OAuthAuthorization } from '../application/identity/oauth/oauth-authorization';
import { OAuthTokenIssuer } from '../application/identity/oauth/oauth-token-issuer';
import { SweepOAuthRecordsUseCase } from '../application/identity/oauth/sweep-oauth-records.use-case';
import { AppConfig } from '../infrastructure/config/app-config';
import { periodicJobProvider } from '../infrastructure/periodic-job';
import { BridleOAuthProvider } from '../infrastructure/oauth/bridle-oauth-provider';
import { type OAuthEndpoint, oauthRouter } from '../infrastructure/oauth/oauth-router';
import { DatabaseRateLimitStore } from '../infrastructure/persistence/repositories/database-rate-limit-store';
import { ProtectedResource } from '../interfaces/http/guards/bearer-challenge';
import { OAuthConsentController } from '../interfaces/http/oauth/oauth-consent.controller';
import { OAuthGrantsController } from '../interfaces/http/oauth/oauth-grants.controller';
import { sendAuthorizationErrorPage } from '../interfaces/http/oauth/authorization-error-page';
import { oauthBoundary } from '../interfaces/http/oauth/oauth-boundary';
import { AccountsModule } from './accounts.module';
import { IdentityModule } from './identity.module';
import { OAuthTokensModule } from './oauth-tokens.module';
import { OutboundFetchModule } from './outbound-fetch.module';

/** How often each server process deletes OAuth records that stopped working (SweepOAuthRecordsUseCase). */
const OAUTH_SWEEP_INTERVAL_MS = 3_600_000;

/**
 * Bridle as the OAuth 2.1 authorization server of MCP clients: the SDK's endpoints at the
 * root (mcpAuthRouter, as middleware ahead of every route) behind Bridle's HTTP boundary
 * (oauthBoundary), the consent API the console's page calls, the person's connected apps,
 * and the sweep of its old records.
 */
@Module({
  imports: [AccountsModule, IdentityModule, OAuthTokensModule, OutboundFetchModule],
  controllers: [OAuthConsentController, OAuthGrantsController],
  providers: [
    OAuthAuthorization,
    ClientMetadataDocuments,
    { provide: ClientMetadataSettings, useFactory: (config: AppConfig) => config.oauth.clientMetadata, inject: [AppConfig] },
    SweepOAuthRecordsUseCase,
    // Every server process, at start and every hour.
    periodicJobProvider({
      what: 'deleting OAuth records',
      context: 'OAuth',
      uses: SweepOAuthRecordsUseCase,
      intervalMs: () => OAUTH_SWEEP_INTERVAL_MS,
      run: (sweeper) => sweeper.run(),
    }),
    {
      provide: BridleOAuthProvider,
      useFactory: (authorization: OAuthAuthorization, tokens: OAuthTokenIssuer) =>
        new BridleOAuthProvider(authorization, tokens, sendAuthorizationErrorPage),
      inject: [OAuthAuthorization, OAuthTokenIssuer],
    },
  ],
})
export class OAuthModule implements NestModule {
  constructor(
    private readonly provider: BridleOAuthProvider,
    private readonly config: AppConfig,
    private readonly resource: ProtectedResource,
    private readonly tokens: OAuthTokenIssuer,
    private readonly dataSource: DataSource,
  ) {}

  configure(consumer: MiddlewareConsumer): void {
    const { resourceUrl } = this.resource;
    const boundary = oauthBoundary({
      clients: this.provider.clientsStore,
      resourceUrl,
      discardExposedCode: (code) => this.tokens.discardExposedCode(code),
    });
    // Every process in front of the database counts the same requests, as with the other limits.
    const limitStore = (endpoint: OAuthEndpoint) => new DatabaseRateLimitStore(this.dataSource, `oauth-${endpoint}:`);
    const { router, off } = oauthRouter(this.provider, this.config.publicBaseUrl, resourceUrl, limitStore, boundary);
    if (!router) {
      new Logger('OAuth').warn(`OAuth for MCP clients is off: ${off} (set PUBLIC_BASE_URL to the https:// address people reach)`);
      return;
    }
    consumer.apply(router).forRoutes('{*path}');
  }
}
