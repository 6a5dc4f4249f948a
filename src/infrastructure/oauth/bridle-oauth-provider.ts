import { Logger } from '@nestjs/common';
import type { Response } from 'express';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { CustomOAuthError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthAuthorization } from '../../application/identity/oauth/oauth-authorization';
import type { IssuedOAuthTokens, OAuthTokenIssuer } from '../../application/identity/oauth/oauth-token-issuer';
import type { OAuthClient } from '../../application/identity/oauth/ports/oauth-store.port';
import { OAuthRefusedError } from '../../domain/identity/oauth';

/**
 * How /authorize shows the person a request it will not start: Bridle's page, never a
 * redirect to the client (the interfaces layer supplies it: sendAuthorizationErrorPage).
 */
export type RefuseAuthorization = (
  res: Response,
  refusal: { readonly status: number; readonly error: string; readonly description: string },
) => void;

/** For what the SDK's handlers answer 500 to without a word in the logs: any failure that is not an OAuth refusal. */
const logger = new Logger('OAuth');

/**
 * Registered clients, for the SDK's handlers. Every client is public (token endpoint auth
 * `none`): an MCP client runs on the person's machine and cannot keep a secret, and PKCE
 * binds each code to the instance that asked for it. A client that asks for a secret gets
 * none (RFC 7591 §3.2.1 lets the server replace requested values), so none is ever stored.
 */
export class BridleClientsStore implements OAuthRegisteredClientsStore {
  constructor(private readonly authorization: OAuthAuthorization) {}

  async getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    const client = await oauthErrors('looking up a client', () => this.authorization.findClient(clientId));
    return client ? clientInformation(client) : undefined;
  }

  async registerClient(client: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>): Promise<OAuthClientInformationFull> {
    const clientId = (client as Partial<OAuthClientInformationFull>).client_id;
    if (!clientId) throw new CustomOAuthError('invalid_client_metadata', 'The server did not assign a client_id');
    const registered = await oauthErrors('registering a client', () => this.authorization.register(clientId, client));
    return clientInformation(registered);
  }
}

/**
 * The SDK's authorization server, on Bridle's rules: the SDK speaks the protocol (metadata,
 * registration, /authorize and /token parameters, PKCE S256, error responses), the
 * application layer decides (OAuthAuthorization, OAuthTokenIssuer). Domain refusals become
 * the OAuth error the rule names.
 */
export class BridleOAuthProvider implements OAuthServerProvider {
  readonly clientsStore: BridleClientsStore;

  constructor(
    private readonly authorization: OAuthAuthorization,
    private readonly tokens: OAuthTokenIssuer,
    private readonly refuse: RefuseAuthorization,
  ) {
    this.clientsStore = new BridleClientsStore(authorization);
  }

  /**
   * Stores the request and sends the browser to the console's consent page. A refusal
   * (Bridle's scopes, state and challenge rules) is shown on Bridle's page, not thrown: the
   * SDK would redirect it to the client, and any client may have registered any site.
   */
  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    let consentUrl: string;
    try {
      consentUrl = await this.authorization.start(client.client_id, {
        redirectUri: params.redirectUri,
        codeChallenge: params.codeChallenge,
        scopes: params.scopes ?? [],
        state: params.state,
        resource: params.resource?.href,
      });
    } catch (error) {
      if (error instanceof OAuthRefusedError) {
        return this.refuse(res, { status: 400, error: error.oauthCode, description: error.message });
      }
      logger.error({ msg: 'starting an authorization request failed', err: error });
      return this.refuse(res, { status: 500, error: 'server_error', description: 'Bridle could not store this request; try again later' });
    }
    res.redirect(302, consentUrl);
  }

  challengeForAuthorizationCode(client: OAuthClientInformationFull, authorizationCode: string): Promise<string> {
    return oauthErrors('exchanging a code', () => this.tokens.challengeFor(client.client_id, authorizationCode));
  }

  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    authorizationCode: string,
    _codeVerifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    return tokenResponse(
      await oauthErrors('exchanging a code', () =>
        this.tokens.exchangeCode(client.client_id, authorizationCode, redirectUri, resource?.href),
      ),
    );
  }

  async exchangeRefreshToken(
    client: OAuthClientInformationFull,
    refreshToken: string,
    scopes?: string[],
    resource?: URL,
  ): Promise<OAuthTokens> {
    return tokenResponse(
      await oauthErrors('refreshing a token', () => this.tokens.refresh(client.client_id, refreshToken, scopes, resource?.href)),
    );
  }

  /** Bridle's own bearer guard checks tokens on /mcp; this is the SDK's form of the same check. */
  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const verified = await this.tokens.verify(token);
    if (!verified || verified.credential.kind !== 'oauth') throw new InvalidTokenError('The access token is invalid or has expired');
    return {
      token,
      clientId: verified.credential.clientId,
      scopes: [...verified.scopes],
      resource: verified.resource ? new URL(verified.resource) : undefined,
      extra: { userId: verified.userId },
    };
  }

  async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    await oauthErrors('revoking a token', () => this.tokens.revokeByClient(client.client_id, request.token));
  }
}

function clientInformation(client: OAuthClient): OAuthClientInformationFull {
  const { registration } = client;
  return {
    client_id: client.id,
    client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
    redirect_uris: [...registration.redirectUris],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    ...(registration.clientName !== null && { client_name: registration.clientName }),
    ...(registration.clientUri !== null && { client_uri: registration.clientUri }),
    ...(registration.softwareId !== null && { software_id: registration.softwareId }),
    ...(registration.softwareVersion !== null && { software_version: registration.softwareVersion }),
  };
}

function tokenResponse(issued: IssuedOAuthTokens): OAuthTokens {
  return {
    access_token: issued.accessToken,
    token_type: 'Bearer',
    expires_in: issued.expiresIn,
    refresh_token: issued.refreshToken,
    scope: issued.scopes.join(' '),
  };
}

/** Domain refusals as the OAuth error they name; anything else is logged, and the SDK answers it with a 500. */
async function oauthErrors<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof OAuthRefusedError) throw new CustomOAuthError(error.oauthCode, error.message);
    logger.error({ msg: `${what} failed`, err: error });
    throw error;
  }
}
