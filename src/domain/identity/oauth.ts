import { labelProblem } from '../shared/untrusted-text-normalisation';
import { DomainError } from '../shared/domain-error';
import { DEFAULT_MCP_SCOPES, holdsScope, parseScopes, type Scope, SCOPES } from './scopes';

/**
 * Bridle as the OAuth 2.1 authorization server of its MCP clients: the rules that are ours
 * (what a client may register, ask for and keep), not the protocol, which the MCP SDK speaks.
 */

/** A pending authorization request waits this long for the person's answer. */
export const AUTHORIZATION_REQUEST_TTL_MS = 10 * 60_000;
/** An authorization code is exchanged at once by the client that asked for it (RFC 6749 §4.1.2: short, single use). */
export const AUTHORIZATION_CODE_TTL_MS = 60_000;

export const CLIENT_LIMITS = {
  redirectUris: 10,
  urlLength: 2_000,
  clientName: 100,
  software: 100,
  /** OAuth `state`: opaque to us, returned as sent. */
  state: 1_000,
} as const;

/**
 * The OAuth error codes our rules answer with (RFC 6749 §4.1.2.1, §5.2; RFC 7591 §3.2.2;
 * RFC 8707 §2). The HTTP side turns each into the protocol's own error response.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'invalid_target'
  | 'invalid_client_metadata'
  | 'invalid_redirect_uri'
  | 'access_denied';

/** A refusal the client reads as an OAuth error; the message goes into error_description and names no secret. */
export class OAuthRefusedError extends DomainError {
  readonly kind = 'validation' as const;
  readonly code: `OAUTH.${Uppercase<OAuthErrorCode>}`;

  constructor(
    readonly oauthCode: OAuthErrorCode,
    message: string,
  ) {
    super(message);
    this.code = `OAUTH.${oauthCode.toUpperCase() as Uppercase<OAuthErrorCode>}`;
  }
}

export class AuthorizationRequestNotFoundError extends DomainError {
  readonly kind = 'not_found' as const;
  readonly code = 'OAUTH.REQUEST_NOT_FOUND';
  constructor() {
    super('No such authorization request: start again from the app that asked');
  }
}

export class AuthorizationRequestExpiredError extends DomainError {
  readonly kind = 'not_found' as const;
  readonly code = 'OAUTH.REQUEST_EXPIRED';
  constructor() {
    super('This authorization request has expired: start again from the app that asked');
  }
}

export class AuthorizationRequestAnsweredError extends DomainError {
  readonly kind = 'not_found' as const;
  readonly code = 'OAUTH.REQUEST_ANSWERED';
  constructor() {
    super('This authorization request was already answered: start again from the app that asked');
  }
}

export class ConsentScopesInvalidError extends DomainError {
  readonly kind = 'validation' as const;
  readonly code = 'OAUTH.CONSENT_SCOPES_INVALID';
}

export class OAuthGrantNotFoundError extends DomainError {
  readonly kind = 'not_found' as const;
  readonly code = 'OAUTH.GRANT_NOT_FOUND';
  constructor() {
    super('No such connected app, or it was already disconnected');
  }
}

/** What a client registers, as we keep it: the fields we use, each checked; the rest is dropped (RFC 7591 §3.2.1 allows it). */
export interface ClientRegistration {
  readonly redirectUris: readonly string[];
  readonly clientName: string | null;
  readonly clientUri: string | null;
  readonly softwareId: string | null;
  readonly softwareVersion: string | null;
}

export interface ClientMetadataInput {
  readonly redirect_uris: readonly string[];
  readonly client_name?: string;
  readonly client_uri?: string;
  readonly grant_types?: readonly string[];
  readonly response_types?: readonly string[];
  readonly software_id?: string;
  readonly software_version?: string;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Redirect URIs are https, or http on the person's own machine (RFC 8252 §7.3: native
 * apps listen on loopback); never a fragment (RFC 6749 §3.1.2), never user info. Grant and
 * response types, when named, are the code flow's. @throws OAuthRefusedError
 */
export function checkClientMetadata(input: ClientMetadataInput): ClientRegistration {
  const uris = input.redirect_uris;
  if (uris.length === 0 || uris.length > CLIENT_LIMITS.redirectUris) {
    throw new OAuthRefusedError('invalid_redirect_uri', `redirect_uris must name 1 to ${CLIENT_LIMITS.redirectUris} URIs`);
  }
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthRefusedError('invalid_redirect_uri', `redirect_uris: ${problem}`);
  }
  const unsupportedGrant = input.grant_types?.find((type) => type !== 'authorization_code' && type !== 'refresh_token');
  if (unsupportedGrant !== undefined) {
    throw new OAuthRefusedError('invalid_client_metadata', 'grant_types may name only authorization_code and refresh_token');
  }
  if (input.response_types?.some((type) => type !== 'code')) {
    throw new OAuthRefusedError('invalid_client_metadata', 'response_types may name only code');
  }
  if (input.client_uri !== undefined && !/^https?:$/.test(safeUrl(input.client_uri)?.protocol ?? '')) {
    throw new OAuthRefusedError('invalid_client_metadata', 'client_uri must be an http(s) URL');
  }
  return {
    redirectUris: [...uris],
    clientName: label('client_name', bounded('client_name', input.client_name, CLIENT_LIMITS.clientName)),
    clientUri: bounded('client_uri', input.client_uri, CLIENT_LIMITS.urlLength),
    softwareId: bounded('software_id', input.software_id, CLIENT_LIMITS.software),
    softwareVersion: bounded('software_version', input.software_version, CLIENT_LIMITS.software),
  };
}

function redirectUriProblem(uri: string): string | null {
  if (uri.length > CLIENT_LIMITS.urlLength) return `a URI is longer than ${CLIENT_LIMITS.urlLength} characters`;
  const url = safeUrl(uri);
  if (!url) return 'a URI is not an absolute URL';
  if (url.hash || uri.includes('#')) return 'a URI has a fragment';
  if (url.username || url.password) return 'a URI has user info';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return 'a URI must be https, or http on localhost, 127.0.0.1 or [::1]';
}

function safeUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/**
 * A name the consent page and the person's connected apps show: one line, in the order it is
 * stored (a bidi override would let a client show itself as another).
 */
function label(field: string, value: string | null): string | null {
  const problem = value === null ? null : labelProblem(value);
  if (problem) throw new OAuthRefusedError('invalid_client_metadata', `${field} ${problem}`);
  return value;
}

function bounded(field: string, value: string | undefined, max: number): string | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (trimmed.length > max) throw new OAuthRefusedError('invalid_client_metadata', `${field} must be at most ${max} characters`);
  return trimmed === '' ? null : trimmed;
}

/**
 * The scopes an authorization request asks for: each one Bridle's (else invalid_scope,
 * naming the scopes Bridle has, not the client's text: the refusal is shown on Bridle's own
 * page, where a client's words must not appear), the MCP default when the client names none.
 * @throws OAuthRefusedError
 */
export function requestedScopes(requested: readonly string[]): Scope[] {
  const named = requested.filter((item) => item !== '');
  if (named.length === 0) return [...DEFAULT_MCP_SCOPES];
  const { scopes, unknown } = parseScopes(named);
  if (unknown.length > 0)
    throw new OAuthRefusedError('invalid_scope', `An unknown scope was asked for; Bridle's scopes are ${SCOPES.join(', ')}`);
  return scopes;
}

/**
 * The scopes a refresh asks for: the token's own when it names none; a narrower set is
 * allowed, a wider one never (RFC 6749 §6). @throws OAuthRefusedError
 */
export function refreshedScopes(held: readonly Scope[], requested: readonly string[] | undefined): Scope[] {
  if (requested === undefined || requested.every((item) => item === '')) return [...held];
  const scopes = requestedScopes(requested);
  const wider = scopes.filter((scope) => !holdsScope(held, scope));
  if (wider.length > 0) throw new OAuthRefusedError('invalid_scope', `The grant does not hold: ${wider.join(' ')}`);
  return scopes;
}

/**
 * The scopes a person allows: those the client asked for, or fewer (the person unticked
 * some), never others and never none. @throws ConsentScopesInvalidError
 */
export function consentedScopes(asked: readonly Scope[], allowed: readonly string[] | undefined): Scope[] {
  if (allowed === undefined) return [...asked];
  const { scopes, unknown } = parseScopes(allowed);
  const extra = [...unknown, ...scopes.filter((scope) => !asked.includes(scope))];
  if (extra.length > 0) throw new ConsentScopesInvalidError(`The app did not ask for: ${extra.slice(0, 5).join(' ').slice(0, 200)}`);
  if (scopes.length === 0) throw new ConsentScopesInvalidError('Allow at least one scope, or deny the request');
  return scopes;
}

/**
 * RFC 8707: a token is for one resource, Bridle's MCP endpoint. A request that names none
 * gets that one; one that names another is refused (invalid_target). @throws OAuthRefusedError
 */
export function boundResource(requested: string | undefined, resourceUrl: string): string {
  if (requested === undefined) return resourceUrl;
  const given = safeUrl(requested);
  if (!given || given.href !== new URL(resourceUrl).href) {
    throw new OAuthRefusedError('invalid_target', `Tokens are issued only for the resource ${resourceUrl}`);
  }
  return resourceUrl;
}

/**
 * Where the browser goes with the person's answer: the client's redirect URI with the code or
 * the error, the state as sent, and `iss`, the authorization server's issuer exactly as its
 * metadata gives it (RFC 9207), so that a client talking to several servers knows which one
 * answered.
 */
export function authorizationResponseUrl(
  redirectUri: string,
  answer: { readonly code: string } | { readonly error: 'access_denied' },
  state: string | null,
  issuer: string,
): string {
  const url = new URL(redirectUri);
  if ('code' in answer) url.searchParams.set('code', answer.code);
  else url.searchParams.set('error', answer.error);
  if (state !== null) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuer);
  return url.href;
}

/**
 * Whether a redirect URI is one of the client's: the same string, or (RFC 8252 §7.3) the same
 * loopback URI on another port. The rule the MCP SDK's authorization handler applies.
 */
export function redirectUriRegistered(requested: string, registered: readonly string[]): boolean {
  return registered.some((uri) => {
    if (uri === requested) return true;
    const a = safeUrl(requested);
    const b = safeUrl(uri);
    if (!a || !b || !LOOPBACK_HOSTS.has(a.hostname) || !LOOPBACK_HOSTS.has(b.hostname)) return false;
    return a.protocol === b.protocol && a.hostname === b.hostname && a.pathname === b.pathname && a.search === b.search;
  });
}
