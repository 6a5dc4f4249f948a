import { type RequestHandler, Router } from 'express';
import type { ClientRegistrationHandlerOptions } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import { createOAuthMetadata, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { DEFAULT_MCP_SCOPES } from '../../domain/identity/scopes';
import type { BridleOAuthProvider } from './bridle-oauth-provider';

/** An express-rate-limit store, as the SDK's handlers take it. */
export type RateLimitStore = NonNullable<Exclude<ClientRegistrationHandlerOptions['rateLimit'], false | undefined>['store']>;
export type OAuthEndpoint = 'authorize' | 'token' | 'register' | 'revoke';

/**
 * The SDK's authorization server endpoints, for mounting at the root: `/authorize`, `/token`,
 * `/register`, `/revoke`, `/.well-known/oauth-authorization-server` (RFC 8414) and the MCP
 * endpoint's protected resource metadata (RFC 9728). The SDK adds per-address rate limits
 * (its own numbers; counted where `limitStore` keeps them) and open CORS on the endpoints a
 * browser-based client calls with fetch (tokens travel in bodies, never cookies); /authorize
 * is a page navigation.
 * @param limitStore a new store for each endpoint's limit (express-rate-limit refuses one
 * store for two limiters); without it each process counts in its own memory.
 * @param before what every request passes first, seeing the same paths: the HTTP boundary
 * (oauthBoundary), which the SDK's handlers have no hook for.
 * @returns null, with the reason, when the SDK refuses the issuer: it must be https, except
 * on localhost and 127.0.0.1.
 */
export function oauthRouter(
  provider: BridleOAuthProvider,
  publicBaseUrl: string,
  resourceUrl: string,
  limitStore?: (endpoint: OAuthEndpoint) => RateLimitStore,
  before?: RequestHandler,
): { router: RequestHandler; off?: undefined } | { router: null; off: string } {
  const limit = (endpoint: OAuthEndpoint) => (limitStore ? { rateLimit: { store: limitStore(endpoint) } } : {});
  try {
    const server = {
      provider,
      issuerUrl: new URL(publicBaseUrl),
      // What /mcp, the one resource these tokens are good for, ever checks. The SDK's client
      // asks for every scope advertised here, so a wider list would only widen the consent.
      scopesSupported: [...DEFAULT_MCP_SCOPES],
    };
    const sdk = mcpAuthRouter({
      ...server,
      resourceServerUrl: new URL(resourceUrl),
      resourceName: 'Bridle',
      authorizationOptions: limit('authorize'),
      tokenOptions: limit('token'),
      clientRegistrationOptions: limit('register'),
      revocationOptions: limit('revoke'),
    });
    const router = Router();
    if (before) router.use(before);
    // The SDK's metadata, and what it has no option for: a client may name itself by the URL of
    // its metadata document (BridleClientsStore fetches it), and every authorization response
    // carries `iss` (RFC 9207). Mounted first, so the SDK's own document is never served.
    router.use(
      '/.well-known/oauth-authorization-server',
      metadataHandler({
        ...createOAuthMetadata(server),
        client_id_metadata_document_supported: true,
        authorization_response_iss_parameter_supported: true,
      }),
    );
    router.use(sdk);
    return { router: atRoot(router) };
  } catch (error) {
    return { router: null, off: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The router as Nest middleware that still sees the whole path: Nest mounts middleware with
 * `app.use('/{*path}', …)`, which leaves `req.url` as `/`, while the SDK's router matches
 * `/authorize`, `/token`… on it.
 */
function atRoot(router: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const { url, baseUrl } = req;
    req.url = req.originalUrl;
    req.baseUrl = '';
    void router(req, res, (error?: unknown) => {
      req.url = url;
      req.baseUrl = baseUrl;
      next(error);
    });
  };
}
