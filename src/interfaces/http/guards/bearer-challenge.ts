import type { Response } from 'express';
import type { Scope } from '../../../domain/identity/scopes';
import { ApiError } from '../shared/api-error';

/**
 * Bridle as an OAuth protected resource (RFC 9728): `/mcp` is the resource MCP clients get
 * tokens for, and its metadata sits at the well-known path built from the resource's path.
 */
export class ProtectedResource {
  /** The audience of every OAuth access token Bridle accepts: `<PUBLIC_BASE_URL>/mcp`. */
  readonly resourceUrl: string;
  readonly metadataUrl: string;

  constructor(publicBaseUrl: string) {
    const base = new URL(publicBaseUrl);
    const prefix = base.pathname.replace(/(?<!\/)\/+$/, '');
    this.resourceUrl = `${base.origin}${prefix}/mcp`;
    this.metadataUrl = `${base.origin}/.well-known/oauth-protected-resource${prefix}/mcp`;
  }
}

type ChallengeError = 'invalid_token' | 'insufficient_scope';

/**
 * The `WWW-Authenticate` header of RFC 6750 §3 with RFC 9728's `resource_metadata`, which
 * tells an MCP client where to start the OAuth flow. Values are our own constants and
 * messages, never the token.
 */
export function bearerChallenge(resource: ProtectedResource, error?: { code: ChallengeError; description: string; scope?: Scope }): string {
  const params = [`resource_metadata="${resource.metadataUrl}"`];
  if (error) {
    params.push(`error="${error.code}"`, `error_description="${error.description.replace(/["\\]/g, '')}"`);
    if (error.scope) params.push(`scope="${error.scope}"`);
  }
  return `Bearer ${params.join(', ')}`;
}

/** 401 AUTH.UNAUTHENTICATED with the challenge set on the response the error filter writes. */
export function unauthenticated(res: Response, resource: ProtectedResource, message: string, tokenGiven: boolean): ApiError {
  res.setHeader('WWW-Authenticate', bearerChallenge(resource, tokenGiven ? { code: 'invalid_token', description: message } : undefined));
  return new ApiError(401, 'AUTH.UNAUTHENTICATED', message);
}

/** 403 AUTH.INSUFFICIENT_SCOPE, naming the scope the client should ask the person for. */
export function insufficientScope(res: Response, resource: ProtectedResource, scope: Scope, message: string): ApiError {
  res.setHeader('WWW-Authenticate', bearerChallenge(resource, { code: 'insufficient_scope', description: message, scope }));
  return new ApiError(403, 'AUTH.INSUFFICIENT_SCOPE', message);
}
