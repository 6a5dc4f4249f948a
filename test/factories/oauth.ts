import type { NewAuthorizationRequest } from '../../src/application/identity/oauth/ports/oauth-store.port';
import type { ClientRegistration } from '../../src/domain/identity/oauth';

/** Where a built client sends the browser back to. */
export const CLIENT_REDIRECT_URI = 'http://127.0.0.1:9/cb';

/** A client's registration: one redirect URI, nothing else said about it. */
export function aClientRegistration(overrides: Partial<ClientRegistration> = {}): ClientRegistration {
  return { redirectUris: [CLIENT_REDIRECT_URI], clientName: null, clientUri: null, softwareId: null, softwareVersion: null, ...overrides };
}

/** A client's authorization request for `tasks:read` on `resource` with a PKCE challenge and no state, until `expiresAt`. */
export function anAuthorizationRequest(
  request: { clientId: string; resource: string; expiresAt: Date },
  overrides: Partial<NewAuthorizationRequest> = {},
): NewAuthorizationRequest {
  return {
    ...request,
    redirectUri: CLIENT_REDIRECT_URI,
    codeChallenge: 'c'.repeat(43),
    scopes: ['tasks:read'],
    state: null,
    ...overrides,
  };
}
