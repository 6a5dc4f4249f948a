import { Module } from '@nestjs/common';
import { OAuthAccessTokenVerifier } from '../application/identity/ports/bearer-token-verifier.port';

/**
 * The OAuth access tokens the bearer guard accepts on /mcp. PROVISIONAL (lead): knows no
 * token until the OAuth store lands and binds its verifier here.
 */
@Module({
  providers: [{ provide: OAuthAccessTokenVerifier, useValue: { verify: () => Promise.resolve(null) } }],
  exports: [OAuthAccessTokenVerifier],
})
export class OAuthTokensModule {}
