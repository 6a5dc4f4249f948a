import { clientIdUrlProblem, clientMetadataDocument, isUrlClientId } from '../../../src/domain/identity/client-metadata-document';
import { OAuthRefusedError } from '../../../src/domain/identity/oauth';

const URL_ID = 'https://app.example/oauth/client.json';

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof OAuthRefusedError) return `${error.oauthCode}: ${error.message}`;
    throw error;
  }
  throw new Error('not refused');
}

describe('client ID metadata document URLs', () => {
  it('tells a URL client_id from a registered UUID', () => {
    expect(isUrlClientId(URL_ID)).toBe(true);
    expect(isUrlClientId('http://app.example/c')).toBe(true);
    expect(isUrlClientId('3f2504e0-4f89-41d3-9a0c-0305e82c3301')).toBe(false);
  });

  it('takes an https URL with a path, in its normal form', () => {
    expect(clientIdUrlProblem(URL_ID)).toBeNull();
    expect(clientIdUrlProblem('https://app.example:8443/c')).toBeNull();
  });

  it.each([
    ['http://app.example/client.json', /must use https/],
    ['https://user@app.example/client.json', /user info/],
    ['https://user:pw@app.example/client.json', /user info/],
    ['https://app.example/client.json#frag', /fragment/],
    ['https://app.example/client.json?v=1', /query/],
    ['https://app.example', /must have a path/],
    ['https://app.example/', /must have a path/],
    ['https://app.example/a/../client.json', /\. or \.\. path segments/],
    ['https://app.example/a/%2e%2e/client.json', /\. or \.\. path segments/],
    ['https://app.example/./client.json', /\. or \.\. path segments/],
    ['https://APP.example/client.json', /normal form/],
    ['https://app.example:443/client.json', /normal form/],
    [`https://app.example/${'a'.repeat(2_000)}`, /at most 2000 characters/],
    ['https://', /absolute https URL/],
  ])('refuses %s', (clientId, problem) => {
    expect(clientIdUrlProblem(clientId)).toMatch(problem);
  });
});

describe('client ID metadata documents', () => {
  const document = { client_id: URL_ID, client_name: 'App', redirect_uris: ['http://127.0.0.1:9/cb'] };

  it('is the registration of a public client whose client_id is the URL it came from', () => {
    expect(clientMetadataDocument(URL_ID, { ...document, token_endpoint_auth_method: 'none', client_uri: 'https://app.example' })).toEqual({
      redirectUris: ['http://127.0.0.1:9/cb'],
      clientName: 'App',
      clientUri: 'https://app.example',
      softwareId: null,
      softwareVersion: null,
    });
  });

  it.each([
    ['an array', [], /not a JSON object/],
    ['null', null, /not a JSON object/],
    ['another client_id', { ...document, client_id: 'https://app.example/other.json' }, /client_id is not the URL/],
    ['a client_id differing in case', { ...document, client_id: URL_ID.toUpperCase() }, /client_id is not the URL/],
    ['a client_secret', { ...document, client_secret: 's' }, /client_secret/],
    ['a jwks_uri', { ...document, jwks_uri: 'https://app.example/jwks' }, /jwks_uri/],
    ['a confidential auth method', { ...document, token_endpoint_auth_method: 'client_secret_basic' }, /token_endpoint_auth_method none/],
    ['no client_name', { client_id: URL_ID, redirect_uris: ['https://app.example/cb'] }, /no client_name/],
    ['no redirect_uris', { client_id: URL_ID, client_name: 'App' }, /no redirect_uris/],
    ['redirect_uris that are not strings', { ...document, redirect_uris: [1] }, /not a list of strings/],
    ['an http redirect URI off loopback', { ...document, redirect_uris: ['http://evil.example/cb'] }, /must be https/],
    ['a redirect URI with a fragment', { ...document, redirect_uris: ['https://app.example/cb#x'] }, /fragment/],
    ['a grant type other than the code flow', { ...document, grant_types: ['client_credentials'] }, /grant_types/],
    ['too many fields', { ...document, ...Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`x${i}`, 1])) }, /more than 50 fields/],
  ])('refuses a document with %s', (_what, body, problem) => {
    const refused = refusal(() => clientMetadataDocument(URL_ID, body));
    expect(refused).toMatch(/^invalid_client: /);
    expect(refused).toMatch(problem);
  });
});
