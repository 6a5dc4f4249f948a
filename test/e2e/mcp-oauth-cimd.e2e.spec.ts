import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { CLIENT_METADATA_FETCH_LIMITS } from '../../src/application/identity/oauth/client-metadata-documents';
import { OutboundNetwork } from '../../src/infrastructure/security/guarded-outbound-fetch';
import { addTasks } from '../factories/tasks';
import { type FixtureAnswer, type HttpsFixture, startHttpsFixture } from '../support/https-fixture';
import { InMemoryOAuthClient, pkce, REDIRECT_URI } from '../support/oauth-client';
import { useTestApp } from '../support/test-app';

const OTHER_REDIRECT_URI = 'https://changed.example/callback';
const DOCUMENT_PATH = '/oauth/client.json';
/** The fetch deadline in this suite (OAUTH_CLIENT_METADATA_TIMEOUT_MS), short so that a slow host is given up on quickly. */
const TIMEOUT_MS = 300;

/** Names the fixture's certificate holds; the resolver maps them all to 127.0.0.1. */
const NAMES = [
  'client.example',
  'denied.example',
  'loopback.example',
  'moved.example',
  'big.example',
  'slow.example',
  'liar.example',
  'changing.example',
  'burst.example',
  'target.example',
];
/** Allowed to resolve to loopback (OUTBOUND_PRIVATE_HOSTS): every name but loopback.example, which shows the default. */
const PRIVATE_OK = NAMES.filter((name) => name !== 'loopback.example');

function documentFor(clientId: string, redirectUris: string[] = [REDIRECT_URI], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    client_id: clientId,
    client_name: 'Fixture <b>App</b>',
    redirect_uris: redirectUris,
    token_endpoint_auth_method: 'none',
    ...extra,
  });
}

/**
 * MCP clients that name themselves by the URL of a Client ID Metadata Document: Bridle
 * fetches the document from a local HTTPS fixture (its own certificate, trusted through
 * OutboundNetwork; a resolver that maps the fixture's names to 127.0.0.1), and refuses every
 * URL, host and document it must not trust, counting on the fixture that nothing was
 * fetched twice where once was enough.
 */
describe('MCP clients named by a Client ID Metadata Document', () => {
  let fixture: HttpsFixture;
  const clients: Client[] = [];
  beforeAll(async () => {
    fixture = await startHttpsFixture(NAMES);
  });
  const resolve = (hostname: string) =>
    NAMES.includes(hostname) ? Promise.resolve(['127.0.0.1']) : Promise.reject(new Error(`${hostname} is not a fixture name`));
  const sut = useTestApp({
    env: () => ({
      OUTBOUND_PRIVATE_HOSTS: PRIVATE_OK.join(','),
      OAUTH_CLIENT_METADATA_TIMEOUT_MS: String(TIMEOUT_MS),
      TRUST_PROXY: 'loopback',
    }),
    outboundNetwork: () => new OutboundNetwork(resolve, fixture.ca),
    beforeClose: async () => {
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
      await fixture?.close();
    },
  });
  const alice = sut.user();
  let issuer: string;
  let resource: string;

  beforeAll(async () => {
    resource = new URL('/mcp', sut.http).href;
    issuer = (await request(sut.http).get('/.well-known/oauth-authorization-server').expect(200)).body.issuer as string;
    await addTasks(sut.http, alice, 'Water the plants');
  });

  const serve = (name: string, answer: FixtureAnswer | (() => FixtureAnswer), path = DOCUMENT_PATH) => fixture.serve(name, path, answer);
  const idOn = (name: string, path = DOCUMENT_PATH) => fixture.url(name, path);
  let addresses = 0;

  function authorize(clientId: string, extra: Record<string, string> = {}): request.Test {
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      state: 'state-1',
      resource,
      ...extra,
    });
    // Each from an address of its own: the SDK's limit of 100 an address is not what is tested here.
    return request(sut.http)
      .get(`/authorize?${params.toString()}`)
      .set('X-Forwarded-For', `10.9.${addresses >> 8}.${addresses++ & 255}`);
  }

  /** The consent page's request id, from where /authorize sent the browser. */
  function consentRequestId(response: request.Response): string {
    expect(response.status).toBe(302);
    const location = new URL(response.headers.location);
    return new URLSearchParams(location.hash.split('?')[1]).get('request')!;
  }

  function expectRefusedPage(response: request.Response, error: string, description: RegExp): void {
    expect(response.status).toBe(400);
    expect(response.text).toContain(`<code>${error}</code>`);
    expect(response.text).toMatch(description);
  }

  it('advertises Client ID Metadata Documents and iss on authorization responses', async () => {
    const metadata = (await request(sut.http).get('/.well-known/oauth-authorization-server').expect(200)).body;
    expect(metadata).toMatchObject({
      issuer: `${sut.http}/`,
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      registration_endpoint: `${sut.http}/register`,
    });
  });

  it('takes an SDK client from its document to a tool call, showing the person its host, with iss on the redirect', async () => {
    const clientId = idOn('client.example');
    serve('client.example', { headers: { 'cache-control': 'max-age=60' }, body: documentFor(clientId) });
    let shown: request.Response | undefined;
    let back: URL | undefined;
    const provider = new InMemoryOAuthClient(
      async (url) => {
        const requestId = consentRequestId(await request(sut.http).get(`${url.pathname}${url.search}`));
        shown = await request(sut.http).get(`/oauth/requests/${requestId}`).set(alice.auth).expect(200);
        const answer = await request(sut.http).post(`/oauth/requests/${requestId}/approve`).set(alice.auth).send({}).expect(200);
        back = new URL(answer.body.redirectTo as string);
      },
      { clientMetadataUrl: clientId },
    );

    const first = new Client({ name: 'cimd-e2e', version: '1.0.0' });
    await expect(first.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider }))).rejects.toThrow(
      UnauthorizedError,
    );
    // The SDK saw the metadata's flag and used the URL instead of registering.
    expect(provider.information?.client_id).toBe(clientId);
    expect(provider.authorizationUrls[0].searchParams.get('client_id')).toBe(clientId);
    // The identity the person trusts is the host; the name is the app's own claim, beside it.
    expect(shown!.body.client).toEqual({ id: clientId, host: 'client.example', name: 'Fixture <b>App</b>', uri: null });
    expect(shown!.body.redirectHost).toBe('127.0.0.1:53682');
    expect(back!.searchParams.get('iss')).toBe(issuer);

    const transport = new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider });
    await transport.finishAuth(back!.searchParams.get('code')!);
    const client = new Client({ name: 'cimd-e2e', version: '1.0.0' });
    clients.push(client);
    await client.connect(transport);
    const listed = await client.callTool({ name: 'list_tasks', arguments: {} });
    expect(listed.isError).toBeFalsy();
    expect(JSON.stringify(listed.structuredContent)).toContain('Water the plants');
    // Authorize, the consent's re-check and the token exchange each needed the document: one fetch, then the cache.
    expect(fixture.count('client.example', DOCUMENT_PATH)).toBe(1);
  });

  it('puts iss on the error redirect when the person denies', async () => {
    const clientId = idOn('denied.example');
    serve('denied.example', { body: documentFor(clientId) });
    const requestId = consentRequestId(await authorize(clientId));
    const answer = await request(sut.http).post(`/oauth/requests/${requestId}/deny`).set(alice.auth).expect(200);
    const back = new URL(answer.body.redirectTo as string);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('iss')).toBe(issuer);
  });

  it('refuses a host that resolves to loopback by default, without a request to it', async () => {
    serve('loopback.example', { body: documentFor(idOn('loopback.example')) });
    expectRefusedPage(await authorize(idOn('loopback.example')), 'invalid_client', /resolves to a special-use address \(loopback\)/);
    expect(fixture.count('loopback.example', DOCUMENT_PATH)).toBe(0);
    // The token endpoint refuses it the same way, in JSON.
    const token = await request(sut.http)
      .post('/token')
      .type('form')
      .send({ grant_type: 'authorization_code', client_id: idOn('loopback.example'), code: 'x', code_verifier: 'y'.repeat(43) });
    expect({ status: token.status, error: token.body.error }).toEqual({ status: 400, error: 'invalid_client' });
    expect(token.body.error_description).toMatch(/special-use address/);
  });

  it('refuses a redirect, a document past 5 KB, a slow host and a document naming another client_id, each after one request', async () => {
    serve('moved.example', { status: 302, headers: { location: idOn('target.example') }, body: '' });
    serve('target.example', { body: documentFor(idOn('moved.example')) });
    serve('big.example', { body: documentFor(idOn('big.example'), [REDIRECT_URI], { padding: 'x'.repeat(6 * 1024) }) });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    serve('slow.example', { holdUntil: released, body: documentFor(idOn('slow.example')) });
    serve('liar.example', { body: documentFor(idOn('client.example')) });

    expectRefusedPage(await authorize(idOn('moved.example')), 'invalid_client', /answered 302: redirects are not followed/);
    expectRefusedPage(await authorize(idOn('big.example')), 'invalid_client', /longer than 5120 bytes/);
    expectRefusedPage(await authorize(idOn('slow.example')), 'invalid_client', new RegExp(`no answer within ${TIMEOUT_MS} ms`));
    release();
    expectRefusedPage(await authorize(idOn('liar.example')), 'invalid_client', /client_id is not the URL it was fetched from/);

    for (const name of ['moved.example', 'big.example', 'slow.example', 'liar.example']) expect(fixture.count(name, DOCUMENT_PATH)).toBe(1);
    expect(fixture.count('target.example', DOCUMENT_PATH)).toBe(0);
    // A refusal is not kept: asking again fetches again, once.
    expectRefusedPage(await authorize(idOn('liar.example')), 'invalid_client', /client_id is not the URL/);
    expect(fixture.count('liar.example', DOCUMENT_PATH)).toBe(2);
  });

  it('refuses malformed URL client_ids without fetching anything', async () => {
    const before = fixture.total();
    const port = fixture.port;
    const cases: [string, string, RegExp][] = [
      [`http://client.example:${port}${DOCUMENT_PATH}`, 'invalid_client', /must use https/],
      [`https://user@client.example:${port}${DOCUMENT_PATH}`, 'invalid_client', /user info/],
      [`https://client.example:${port}${DOCUMENT_PATH}#x`, 'invalid_client', /fragment/],
      [`https://client.example:${port}${DOCUMENT_PATH}?v=1`, 'invalid_client', /query/],
      [`https://client.example:${port}`, 'invalid_client', /must have a path/],
      [`https://client.example:${port}/${'a'.repeat(2_000)}`, 'invalid_client', /at most 2000 characters/],
      [`https://client.example:${port}/${'a'.repeat(2_100)}`, 'invalid_request', /at most 2048 characters|longer than/],
    ];
    for (const [clientId, error, description] of cases) expectRefusedPage(await authorize(clientId), error, description);
    expect(fixture.total()).toBe(before);
  });

  it('asks for consent again, for the new address only, when the document changes its redirect URIs', async () => {
    const clientId = idOn('changing.example');
    let redirectUris = [REDIRECT_URI];
    serve('changing.example', () => ({ headers: { 'cache-control': 'no-store' }, body: documentFor(clientId, redirectUris) }));
    const first = consentRequestId(await authorize(clientId));
    await request(sut.http).post(`/oauth/requests/${first}/approve`).set(alice.auth).send({}).expect(200);

    // A request waiting on the consent page when the document changes cannot send its code to the old address.
    const pending = consentRequestId(await authorize(clientId));
    redirectUris = [OTHER_REDIRECT_URI];
    const stale = await request(sut.http).post(`/oauth/requests/${pending}/approve`).set(alice.auth).send({});
    expect(stale.status).toBe(400);
    expect(stale.body.code).toBe('OAUTH.INVALID_REQUEST');

    expectRefusedPage(await authorize(clientId), 'invalid_request', /redirect_uri is not one the client registered/);
    const again = consentRequestId(await authorize(clientId, { redirect_uri: OTHER_REDIRECT_URI }));
    const shown = await request(sut.http).get(`/oauth/requests/${again}`).set(alice.auth).expect(200);
    expect(shown.body.redirectHost).toBe('changed.example');
    expect(shown.body.client.host).toBe('changing.example');
  });

  it('shares one fetch in flight among 200 authorization requests naming a host that never answers, and fetches at most the per-host limit', async () => {
    const clientId = idOn('burst.example');
    // Never answered: each fetch runs into the deadline, and a refusal is not kept.
    serve('burst.example', { holdUntil: new Promise(() => undefined), body: documentFor(clientId) });
    const answers = await Promise.all(Array.from({ length: 200 }, () => authorize(clientId)));
    for (const answer of answers) expect(answer.status).toBe(400);
    expect(answers.filter((answer) => answer.text.includes(`no answer within ${TIMEOUT_MS} ms`)).length).toBeGreaterThan(0);
    // Never two fetches of one URL at once, and no more in a minute than the per-host limit however many ask.
    expect(fixture.maxOpen('burst.example', DOCUMENT_PATH)).toBe(1);
    expect(fixture.count('burst.example', DOCUMENT_PATH)).toBeGreaterThanOrEqual(1);
    expect(fixture.count('burst.example', DOCUMENT_PATH)).toBeLessThanOrEqual(CLIENT_METADATA_FETCH_LIMITS.perHost);
  });
});
