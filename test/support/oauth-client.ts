import { createHash, randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** Where the test clients say the person's browser comes back to. */
export const REDIRECT_URI = 'http://127.0.0.1:53682/callback';

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * An MCP SDK client's OAuth state, in memory; the person's part is `onAuthorization`, played
 * by the test. With `clientMetadataUrl` the client names itself by its metadata document
 * (CIMD); otherwise it registers (DCR) with `clientMetadata`.
 */
export class InMemoryOAuthClient implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  readonly authorizationUrls: URL[] = [];
  readonly clientMetadataUrl?: string;

  constructor(
    private readonly onAuthorization: (url: URL) => Promise<void>,
    options: { clientMetadataUrl?: string; clientMetadata?: OAuthClientMetadata } = {},
  ) {
    this.clientMetadataUrl = options.clientMetadataUrl;
    this.metadata = options.clientMetadata ?? {
      client_name: 'Test client',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
    };
  }

  private readonly metadata: OAuthClientMetadata;

  get redirectUrl(): string {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return this.metadata;
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
  }
  async redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
    await this.onAuthorization(url);
  }
}
