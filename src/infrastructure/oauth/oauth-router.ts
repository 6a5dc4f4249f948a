import { type RequestHandler, Router } from 'express';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { DEFAULT_MCP_SCOPES } from '../../domain/identity/scopes';
import type { BridleOAuthProvider } from './bridle-oauth-provider';

/**
 * The SDK's authorization server endpoints, for mounting at the root: `/authorize`, `/token`,
 * `/register`, `/revoke`, `/.well-known/oauth-authorization-server` (RFC 8414) and the MCP
 * endpoint's protected resource metadata (RFC 9728). The SDK adds per-address rate limits
 * (in this process's memory) and open CORS on the endpoints a browser-based client calls
 * with fetch (tokens travel in bodies, never cookies); /authorize is a page navigation.
 * @param before what every request passes first, seeing the same paths: the HTTP boundary
 * (oauthBoundary), which the SDK's handlers have no hook for.
 * @returns null, with the reason, when the SDK refuses the issuer: it must be https, except
 * on localhost and 127.0.0.1.
 */
export function oauthRouter(
  provider: BridleOAuthProvider,
  publicBaseUrl: string,
  resourceUrl: string,
  before?: RequestHandler,
): { router: RequestHandler; off?: undefined } | { router: null; off: string } {
  try {
    const sdk = mcpAuthRouter({
      provider,
      issuerUrl: new URL(publicBaseUrl),
      resourceServerUrl: new URL(resourceUrl),
      // What /mcp, the one resource these tokens are good for, ever checks. The SDK's client
      // asks for every scope advertised here, so a wider list would only widen the consent.
      scopesSupported: [...DEFAULT_MCP_SCOPES],
      resourceName: 'Bridle',
    });
    const router = Router();
    if (before) router.use(before);
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
