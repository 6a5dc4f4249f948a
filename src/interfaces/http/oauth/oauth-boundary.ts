import { Logger } from '@nestjs/common';
import { type RequestHandler, type Response, Router, urlencoded } from 'express';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { redirectUriMatches } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { boundResource, OAuthRefusedError } from '../../../domain/identity/oauth';
import { describeInputProblem } from '../../../domain/shared/untrusted-input';
import { requestInputProblem } from '../shared/request-input';
import { sendAuthorizationErrorPage } from './authorization-error-page';

/** The longest value, or field name, any OAuth endpoint takes: above a redirect URI's 2 000 characters. */
export const OAUTH_MAX_FIELD_LENGTH = 2_048;
/** A form body at /authorize, /token or /revoke, as large as a JSON body anywhere else. */
const OAUTH_MAX_FORM_BYTES = 64 * 1024;

/** How a refusal reaches the client: OAuth's JSON error, or, at /authorize, Bridle's page for the person. */
type Refuse = (res: Response, status: number, description: string) => void;

export interface OAuthBoundaryOptions {
  readonly clients: OAuthRegisteredClientsStore;
  /** The one resource tokens are for (RFC 8707): `resource` names it or nothing. */
  readonly resourceUrl: string;
  /** Spends an authorization code that arrived in a URL, where it is no longer secret. */
  readonly discardExposedCode: (code: string) => Promise<void>;
}

/**
 * What every request to the SDK's OAuth endpoints passes first, mounted at the root ahead of
 * mcpAuthRouter (oauthRouter's `before`):
 * - a method the endpoint does not take is 405 with Allow, before any handler reads the
 *   request (a GET /token carries its code and verifier in the URL);
 * - the same input boundary as every Nest route (requestInputProblem), with a size limit on
 *   each field, over the query and the body (form bodies are parsed here, once);
 * - at /authorize, the whole request is checked before the SDK sees it, so that the SDK,
 *   which redirects its errors to the client's redirect URI, never has one to redirect:
 *   every refusal is Bridle's page (authorizationGate).
 */
export function oauthBoundary(options: OAuthBoundaryOptions): RequestHandler {
  const router = Router();
  const form = urlencoded({ extended: false, limit: OAUTH_MAX_FORM_BYTES });
  const page: Refuse = (res, status, description) => sendAuthorizationErrorPage(res, { status, error: 'invalid_request', description });
  const invalidRequest = oauthError('invalid_request');
  router.use('/authorize', allowOnly(['GET', 'POST']), parsed(form, page), checked(page), authorizationGate(options));
  router.use('/token', spendsCodeInUrl(options.discardExposedCode));
  router.use(['/token', '/revoke'], allowOnly(['POST'], { cors: true }), parsed(form, invalidRequest), checked(invalidRequest));
  // JSON, parsed by the app's own body parser (configureHttpApp).
  router.use('/register', allowOnly(['POST'], { cors: true }), checked(oauthError('invalid_client_metadata')));
  return router;
}

/**
 * A code in /token's query string, whatever the method, is spent before the request is
 * answered: the URL it came in may be kept anywhere on its way (RFC 9700 §4.2.4 on codes in
 * URLs), so it can no longer prove that its holder is the client.
 */
function spendsCodeInUrl(discard: (code: string) => Promise<void>): RequestHandler {
  const logger = new Logger('OAuth');
  return (req, _res, next) => {
    const { code } = req.query;
    if (typeof code !== 'string' || code === '') return next();
    discard(code).then(
      () => {
        logger.warn("an authorization code arrived in /token's URL: it is spent, and exchanging it will end its grant");
        next();
      },
      (error: unknown) => next(error),
    );
  };
}

/**
 * 405 with Allow for any other method. Endpoints a browser-based client calls with fetch
 * (`cors`) let the CORS preflight through to the SDK, and carry CORS on the refusal as the
 * SDK's own answers do.
 */
function allowOnly(methods: readonly string[], { cors = false } = {}): RequestHandler {
  return (req, res, next) => {
    if (methods.includes(req.method) || (cors && req.method === 'OPTIONS')) return next();
    if (cors) res.setHeader('Access-Control-Allow-Origin', '*');
    res
      .status(405)
      .set('Allow', methods.join(', '))
      .json({ error: 'method_not_allowed', error_description: `The method ${req.method} is not allowed for this endpoint` });
  };
}

/** The body parser, with its failures (too large, a bad charset) answered here rather than by Nest's error handling. */
function parsed(parser: RequestHandler, refuse: Refuse): RequestHandler {
  return (req, res, next) =>
    parser(req, res, (error?: unknown) => {
      if (error === undefined) return next();
      const { type, status } = error as { type?: unknown; status?: unknown };
      if (type === 'entity.too.large') return refuse(res, 413, `The request body is larger than ${OAUTH_MAX_FORM_BYTES / 1024} KB`);
      refuse(res, typeof status === 'number' && status >= 400 && status < 500 ? status : 400, 'The request body is not a valid form');
    });
}

function checked(refuse: Refuse): RequestHandler {
  return (req, res, next) => {
    const problem = requestInputProblem(
      { query: req.query, body: req.body },
      { maxTextLength: OAUTH_MAX_FIELD_LENGTH, formBody: Boolean(req.is('application/x-www-form-urlencoded')) },
    );
    if (problem) return refuse(res, 400, describeInputProblem(problem));
    next();
  };
}

/** OAuth's error response (RFC 6749 §5.2, RFC 7591 §3.2.2), as the SDK's handlers write theirs. */
function oauthError(error: 'invalid_request' | 'invalid_client_metadata'): Refuse {
  return (res, status, description) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res
      .status(status)
      .set('Cache-Control', 'no-store')
      .json({ error: status === 413 ? 'invalid_request' : error, error_description: description });
  };
}

interface Refusal {
  readonly error: string;
  readonly description: string;
}

/**
 * Every check the SDK's authorization handler makes, at least as strictly, in its order:
 * first the client and the redirect URI (which the SDK answers with JSON), then the
 * parameters it would redirect to the client with an error (response_type, the PKCE
 * challenge, resource). What Bridle's own rules refuse later (scopes, the challenge's
 * shape) BridleOAuthProvider shows on the same page. Nothing here redirects.
 */
function authorizationGate({ clients, resourceUrl }: OAuthBoundaryOptions): RequestHandler {
  const logger = new Logger('OAuth');
  return (req, res, next) => {
    const params = ((req.method === 'POST' ? req.body : req.query) ?? {}) as Record<string, unknown>;
    authorizationProblem(params, clients, resourceUrl).then(
      (refusal) => (refusal ? sendAuthorizationErrorPage(res, { status: 400, ...refusal }) : next()),
      (error: unknown) => {
        logger.error({ msg: 'checking an authorization request failed', err: error });
        sendAuthorizationErrorPage(res, {
          status: 500,
          error: 'server_error',
          description: 'Bridle could not check this request; try again later',
        });
      },
    );
  };
}

async function authorizationProblem(
  params: Record<string, unknown>,
  clients: OAuthRegisteredClientsStore,
  resourceUrl: string,
): Promise<Refusal | null> {
  const { client_id: clientId, redirect_uri: redirectUri } = params;
  if (typeof clientId !== 'string' || clientId === '') return invalidRequest('client_id is missing');
  let client;
  try {
    client = await clients.getClient(clientId);
  } catch (error) {
    // A client_id that is a URL whose metadata document was refused: what was wrong, in OAuth's words.
    if (error instanceof OAuthError && error.errorCode !== 'server_error') return { error: error.errorCode, description: error.message };
    throw error;
  }
  if (!client) return { error: 'invalid_client', description: 'client_id names no client registered here' };
  if (redirectUri === undefined) {
    if (client.redirect_uris.length !== 1) return invalidRequest('redirect_uri is missing, and the client registered more than one');
  } else if (typeof redirectUri !== 'string' || !client.redirect_uris.some((registered) => redirectUriMatches(redirectUri, registered))) {
    return invalidRequest('redirect_uri is not one the client registered');
  }
  if (params.response_type !== 'code') {
    return { error: 'unsupported_response_type', description: 'response_type must be code (the authorization code flow)' };
  }
  if (typeof params.code_challenge !== 'string' || params.code_challenge === '') {
    return invalidRequest('code_challenge is missing: every request needs a PKCE challenge');
  }
  if (params.code_challenge_method !== 'S256') return invalidRequest('code_challenge_method must be S256');
  for (const name of ['scope', 'state', 'resource']) {
    if (params[name] !== undefined && typeof params[name] !== 'string') return invalidRequest(`${name} must be a string`);
  }
  if (typeof params.resource === 'string') {
    try {
      boundResource(params.resource, resourceUrl);
    } catch (error) {
      if (error instanceof OAuthRefusedError) return { error: error.oauthCode, description: error.message };
      throw error;
    }
  }
  return null;
}

function invalidRequest(description: string): Refusal {
  return { error: 'invalid_request', description };
}
