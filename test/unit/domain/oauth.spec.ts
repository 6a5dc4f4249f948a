import {
  authorizationResponseUrl,
  boundResource,
  checkClientMetadata,
  ConsentScopesInvalidError,
  consentedScopes,
  OAuthRefusedError,
  redirectUriRegistered,
  refreshedScopes,
  requestedScopes,
} from '../../../src/domain/identity/oauth';

const RESOURCE = 'https://bridle.example/mcp';

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof OAuthRefusedError) return error.oauthCode;
    throw error;
  }
  throw new Error('not refused');
}

describe('OAuth rules', () => {
  describe(checkClientMetadata.name, () => {
    it('takes https redirect URIs and http ones on loopback, and keeps only the fields it uses', () => {
      const registration = checkClientMetadata({
        redirect_uris: ['https://app.example/cb', 'http://127.0.0.1:4000/cb', 'http://localhost/cb', 'http://[::1]:9/cb'],
        client_name: '  Claude  ',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      });
      expect(registration).toEqual({
        redirectUris: ['https://app.example/cb', 'http://127.0.0.1:4000/cb', 'http://localhost/cb', 'http://[::1]:9/cb'],
        clientName: 'Claude',
        clientUri: null,
        softwareId: null,
        softwareVersion: null,
      });
    });

    it.each([
      ['plain http elsewhere', 'http://app.example/cb'],
      ['a fragment', 'https://app.example/cb#x'],
      ['user info', 'https://user:pw@app.example/cb'],
      ['another scheme', 'myapp://callback'],
      ['not a URL', 'callback'],
      ['a URI past 2000 characters', `https://app.example/${'a'.repeat(2000)}`],
    ])('refuses a redirect URI with %s', (_case, uri) => {
      expect(refusal(() => checkClientMetadata({ redirect_uris: [uri] }))).toBe('invalid_redirect_uri');
    });

    it('refuses no redirect URI, more than ten, other grants and long names', () => {
      expect(refusal(() => checkClientMetadata({ redirect_uris: [] }))).toBe('invalid_redirect_uri');
      expect(refusal(() => checkClientMetadata({ redirect_uris: Array(11).fill('https://a.example/cb') }))).toBe('invalid_redirect_uri');
      const ok = { redirect_uris: ['https://a.example/cb'] };
      expect(refusal(() => checkClientMetadata({ ...ok, grant_types: ['client_credentials'] }))).toBe('invalid_client_metadata');
      expect(refusal(() => checkClientMetadata({ ...ok, response_types: ['token'] }))).toBe('invalid_client_metadata');
      expect(refusal(() => checkClientMetadata({ ...ok, client_name: 'x'.repeat(101) }))).toBe('invalid_client_metadata');
      // A right-to-left override would show the name on the consent page in another order than stored.
      expect(refusal(() => checkClientMetadata({ ...ok, client_name: 'Claude \u202Eedualc' }))).toBe('invalid_client_metadata');
      expect(refusal(() => checkClientMetadata({ ...ok, client_name: 'Two\nlines' }))).toBe('invalid_client_metadata');
      expect(refusal(() => checkClientMetadata({ ...ok, client_uri: 'javascript:alert(1)' }))).toBe('invalid_client_metadata');
    });
  });

  it('asks for Bridle’s scopes only, the MCP default when none', () => {
    expect(requestedScopes([])).toEqual(['tasks:read', 'tasks:write']);
    expect(requestedScopes([''])).toEqual(['tasks:read', 'tasks:write']);
    expect(requestedScopes(['campaigns:*'])).toEqual(['campaigns:read', 'campaigns:write']);
    expect(refusal(() => requestedScopes(['tasks:read', 'root']))).toBe('invalid_scope');
  });

  it('lets a refresh narrow the scopes, never widen them', () => {
    expect(refreshedScopes(['tasks:read', 'tasks:write'], undefined)).toEqual(['tasks:read', 'tasks:write']);
    expect(refreshedScopes(['tasks:write'], ['tasks:read'])).toEqual(['tasks:read']);
    expect(refusal(() => refreshedScopes(['tasks:read'], ['tasks:read', 'tasks:write']))).toBe('invalid_scope');
    expect(refusal(() => refreshedScopes(['tasks:read'], ['nope']))).toBe('invalid_scope');
  });

  it('lets the person allow the requested scopes or fewer, never others and never none', () => {
    expect(consentedScopes(['tasks:read', 'tasks:write'], undefined)).toEqual(['tasks:read', 'tasks:write']);
    expect(consentedScopes(['tasks:read', 'tasks:write'], ['tasks:read'])).toEqual(['tasks:read']);
    expect(() => consentedScopes(['tasks:read'], ['chat'])).toThrow(ConsentScopesInvalidError);
    expect(() => consentedScopes(['tasks:read'], [])).toThrow(ConsentScopesInvalidError);
  });

  it('binds tokens to the MCP resource, absent or named, and refuses another', () => {
    expect(boundResource(undefined, RESOURCE)).toBe(RESOURCE);
    expect(boundResource('https://BRIDLE.example/mcp', RESOURCE)).toBe(RESOURCE);
    expect(refusal(() => boundResource('https://bridle.example/api', RESOURCE))).toBe('invalid_target');
    expect(refusal(() => boundResource('https://evil.example/mcp', RESOURCE))).toBe('invalid_target');
  });

  it('answers at the redirect URI, keeping its query and the state as sent, naming the issuer', () => {
    expect(authorizationResponseUrl('http://127.0.0.1:9/cb?x=1', { code: 'abc' }, 's&1', 'https://bridle.example/')).toBe(
      'http://127.0.0.1:9/cb?x=1&code=abc&state=s%261&iss=https%3A%2F%2Fbridle.example%2F',
    );
    expect(authorizationResponseUrl('https://a.example/cb', { error: 'access_denied' }, null, 'https://bridle.example/')).toBe(
      'https://a.example/cb?error=access_denied&iss=https%3A%2F%2Fbridle.example%2F',
    );
  });

  it('takes a redirect URI the client lists, or the same loopback URI on another port', () => {
    const registered = ['http://127.0.0.1:9/cb', 'https://a.example/cb'];
    expect(redirectUriRegistered('https://a.example/cb', registered)).toBe(true);
    expect(redirectUriRegistered('http://127.0.0.1:5000/cb', registered)).toBe(true);
    expect(redirectUriRegistered('http://localhost:9/cb', registered)).toBe(false);
    expect(redirectUriRegistered('https://a.example:444/cb', registered)).toBe(false);
    expect(redirectUriRegistered('https://b.example/cb', registered)).toBe(false);
  });
});
