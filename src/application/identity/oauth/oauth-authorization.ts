import { Injectable } from '@nestjs/common';
import {
  AUTHORIZATION_CODE_TTL_MS,
  AUTHORIZATION_REQUEST_TTL_MS,
  AuthorizationRequestAnsweredError,
  AuthorizationRequestExpiredError,
  AuthorizationRequestNotFoundError,
  authorizationResponseUrl,
  boundResource,
  checkClientMetadata,
  CLIENT_LIMITS,
  type ClientMetadataInput,
  consentedScopes,
  OAuthRefusedError,
  redirectUriRegistered,
  requestedScopes,
} from '../../../domain/identity/oauth';
import { isUrlClientId } from '../../../domain/identity/client-metadata-document';
import { isUuid } from '../../../domain/shared/uuid';
import { Clock } from '../../shared/ports/clock.port';
import { OpaqueTokens } from '../ports/opaque-tokens.port';
import { ClientMetadataDocuments } from './client-metadata-documents';
import { OAuthGrants } from './oauth-grants';
import { OAuthSettings } from './oauth-settings';
import { type AuthorizationRequest, type OAuthClient, OAuthStore } from './ports/oauth-store.port';

export interface AuthorizationParams {
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly scopes: readonly string[];
  readonly state: string | undefined;
  readonly resource: string | undefined;
}

/**
 * The front half of the code flow: a client registers, sends the person's browser to
 * /authorize, the request waits for the person on the console's consent page, and their
 * answer sends the browser back to the client with a code or `access_denied`. The SDK has
 * already checked the client and the redirect URI against its registration.
 */
@Injectable()
export class OAuthAuthorization {
  constructor(
    private readonly store: OAuthStore,
    private readonly grants: OAuthGrants,
    private readonly opaque: OpaqueTokens,
    private readonly settings: OAuthSettings,
    private readonly clock: Clock,
    private readonly documents: ClientMetadataDocuments,
  ) {}

  /** Dynamic client registration (RFC 7591). @throws OAuthRefusedError */
  register(clientId: string, metadata: ClientMetadataInput): Promise<OAuthClient> {
    return this.store.registerClient(clientId, checkClientMetadata(metadata), this.clock.now());
  }

  /**
   * A registered client by its UUID, or a client named by the URL of its metadata document:
   * the document (ClientMetadataDocuments) is its registration, stored as last seen so that
   * its requests and grants have a client to hang on. @throws OAuthRefusedError (invalid_client)
   * for a URL whose document is refused.
   */
  async findClient(clientId: string): Promise<OAuthClient | null> {
    if (isUuid(clientId)) return this.store.findClient(clientId);
    if (!isUrlClientId(clientId)) return null;
    const registration = await this.documents.registration(clientId);
    return this.store.saveClient(clientId, registration, this.clock.now());
  }

  /**
   * Stores the request for the person to answer. @returns the consent page's URL.
   * @throws OAuthRefusedError (invalid_scope, invalid_target, invalid_request), which the client gets at its redirect URI.
   */
  async start(clientId: string, params: AuthorizationParams): Promise<string> {
    if (params.state !== undefined && params.state.length > CLIENT_LIMITS.state) {
      throw new OAuthRefusedError('invalid_request', `state must be at most ${CLIENT_LIMITS.state} characters`);
    }
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(params.codeChallenge)) {
      throw new OAuthRefusedError('invalid_request', 'code_challenge must be an S256 PKCE challenge');
    }
    const now = this.clock.now();
    const id = await this.store.createRequest(
      {
        clientId,
        redirectUri: params.redirectUri,
        codeChallenge: params.codeChallenge,
        scopes: requestedScopes(params.scopes),
        state: params.state ?? null,
        resource: boundResource(params.resource, this.settings.resourceUrl),
        expiresAt: new Date(now.getTime() + AUTHORIZATION_REQUEST_TTL_MS),
      },
      now,
    );
    return `${this.settings.consoleUrl}/#/authorize?request=${id}`;
  }

  /** What the consent page shows. @throws AuthorizationRequestNotFoundError, …ExpiredError, …AnsweredError */
  async view(requestId: string): Promise<AuthorizationRequest> {
    return this.open(requestId, this.clock.now());
  }

  /**
   * The person allows it: their grant to the client holds the scopes, and the browser goes
   * back with a code that only the holder of the PKCE verifier can exchange, once, within a
   * minute. @param scopes what the person allows, when fewer than the client asked for.
   * @returns where the browser goes. @throws ConsentScopesInvalidError, and as view does.
   */
  async approve(userId: string, requestId: string, scopes?: readonly string[]): Promise<string> {
    const now = this.clock.now();
    const request = await this.open(requestId, now);
    const allowed = consentedScopes(request.scopes, scopes);
    // A client's registration may change while the person reads the page (a metadata document
    // is fetched again on each request): the code goes only where the client still sends it.
    const current = await this.findClient(request.clientId);
    if (!current || !redirectUriRegistered(request.redirectUri, current.registration.redirectUris)) {
      throw new OAuthRefusedError(
        'invalid_request',
        'The app no longer lists the address this request would return to: start again from the app',
      );
    }
    if (!(await this.store.answerRequest(request.id, 'approved', userId, now))) throw new AuthorizationRequestAnsweredError();
    const grant = await this.grants.consent(userId, request.clientId, request.resource, allowed);
    const { secret: code, hash } = this.opaque.mint('');
    await this.store.storeCode(hash, request.id, grant.id, allowed, new Date(now.getTime() + AUTHORIZATION_CODE_TTL_MS));
    return authorizationResponseUrl(request.redirectUri, { code }, request.state, this.settings.issuer);
  }

  /** The person refuses: the browser goes back with `error=access_denied`. @returns where the browser goes. */
  async deny(userId: string, requestId: string): Promise<string> {
    const now = this.clock.now();
    const request = await this.open(requestId, now);
    if (!(await this.store.answerRequest(request.id, 'denied', userId, now))) throw new AuthorizationRequestAnsweredError();
    return authorizationResponseUrl(request.redirectUri, { error: 'access_denied' }, request.state, this.settings.issuer);
  }

  private async open(requestId: string, now: Date): Promise<AuthorizationRequest> {
    const request = isUuid(requestId) ? await this.store.findRequest(requestId) : null;
    if (!request) throw new AuthorizationRequestNotFoundError();
    if (request.answeredAt !== null) throw new AuthorizationRequestAnsweredError();
    if (request.expiresAt.getTime() <= now.getTime()) throw new AuthorizationRequestExpiredError();
    return request;
  }
}
