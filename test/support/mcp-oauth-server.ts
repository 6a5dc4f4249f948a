import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import request from 'supertest';
import { ShiftedClock } from '../fakes/fixed-clock';
import { addTasks } from '../factories/tasks';
import { type SignedInUser } from './accounts';
import { captureStdout } from './log-capture';
import { pkce, REDIRECT_URI } from './oauth-client';
import { type AppUnderTest, startTestApp, type TestApp, useTestApp } from './test-app';
import { usingPostgresServer } from './test-database';

export const CLIENT_METADATA: OAuthClientMetadata = {
  client_name: 'Test <b>client</b>',
  client_uri: 'https://client.example',
  redirect_uris: [REDIRECT_URI],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
};
export const ACCESS_TTL_SECONDS = 60;

/**
 * Bridle as an MCP client's authorization server, for the describe that builds it: the app
 * (with its output captured), on PostgreSQL a second replica on its database, a person with a
 * task, and what a client and the person do at each endpoint. `replica`, `mcpUrl` and
 * `resource` are set once the app has started. The steps are arrow fields, to be destructured.
 */
export class McpOAuthServer {
  readonly clock = new ShiftedClock();
  /** Every token, code and verifier the test saw: none may reach a log or an audit row. */
  readonly secrets: string[] = [];
  readonly clients: Client[] = [];
  readonly sut: AppUnderTest;
  readonly alice: SignedInUser;
  stdout!: ReturnType<typeof captureStdout>;
  /** Another replica on the same database (PostgreSQL; on PGlite, one process's database, `sut` again). */
  replica!: TestApp;
  mcpUrl!: URL;
  resource!: string;

  constructor() {
    const config = { LOG_LEVEL: 'info', OAUTH_ACCESS_TOKEN_TTL_SECONDS: String(ACCESS_TTL_SECONDS) };
    beforeAll(() => {
      this.stdout = captureStdout();
    });
    const sut = useTestApp({
      env: config,
      clock: this.clock,
      beforeClose: async () => {
        this.stdout?.restore();
        await Promise.all(this.clients.map((client) => client.close().catch(() => undefined)));
        if (this.replica !== sut) await this.replica?.close();
      },
    });
    this.sut = sut;
    this.alice = sut.user();
    beforeAll(async () => {
      // A fleet has one public URL (the balancer's): the issuer and the MCP resource of every replica.
      this.replica = usingPostgresServer
        ? await startTestApp(sut.db, { ...config, PUBLIC_BASE_URL: sut.http }, { clock: this.clock })
        : sut;
      this.mcpUrl = new URL('/mcp', sut.http);
      this.resource = this.mcpUrl.href;
      await addTasks(sut.http, this.alice, 'Water the plants');
    });
  }

  /** The consent page's request id, from where /authorize sent the browser (`<base>/#/authorize?request=<id>`). */
  readonly consentRequestId = async (authorizationUrl: URL | string): Promise<string> => {
    const response = await fetch(authorizationUrl, { redirect: 'manual' });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(`${this.sut.http}/`);
    const [route, query] = location.hash.slice(1).split('?');
    expect(route).toBe('/authorize');
    return new URLSearchParams(query).get('request')!;
  };

  /** The person approves (signed in over the API); returns the code the browser takes back to the client. */
  readonly approve = async (
    person: SignedInUser,
    authorizationUrl: URL | string,
    scopes?: string[],
  ): Promise<{ code: string; state: string | null }> => {
    const requestId = await this.consentRequestId(authorizationUrl);
    const answer = await request(this.sut.http)
      .post(`/oauth/requests/${requestId}/approve`)
      .set(person.auth)
      .send(scopes ? { scopes } : {})
      .expect(200);
    const back = new URL(answer.body.redirectTo);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    const code = back.searchParams.get('code')!;
    this.secrets.push(code);
    return { code, state: back.searchParams.get('state') };
  };

  readonly register = (metadata: Partial<OAuthClientMetadata> = {}): request.Test =>
    request(this.sut.http)
      .post('/register')
      .send({ client_name: 'Hand-made client', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', ...metadata });

  readonly authorizeUrl = (clientId: string, challenge: string, extra: Record<string, string> = {}): string => {
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'state-1',
      resource: this.resource,
      ...extra,
    });
    return `${this.sut.http}/authorize?${params.toString()}`;
  };

  readonly token = (body: Record<string, string>, app: TestApp = this.sut) => request(app.http).post('/token').type('form').send(body);

  /** A hand-made client with a code for `scope`: what the hostile cases start from. */
  readonly codeFor = async (scope = 'tasks:read tasks:write'): Promise<{ clientId: string; code: string; verifier: string }> => {
    const clientId = (await this.register().expect(201)).body.client_id as string;
    const { verifier, challenge } = pkce();
    this.secrets.push(verifier);
    const { code } = await this.approve(this.alice, this.authorizeUrl(clientId, challenge, { scope }));
    return { clientId, code, verifier };
  };

  readonly exchange = async (clientId: string, code: string, verifier: string, extra: Record<string, string> = {}) => {
    const response = await this.token({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
      resource: this.resource,
      ...extra,
    });
    if (response.status === 200) this.secrets.push(response.body.access_token, response.body.refresh_token);
    return response;
  };

  readonly callMcp = (accessToken: string, app: TestApp = this.sut) =>
    request(app.http)
      .post('/mcp')
      .set({ Authorization: `Bearer ${accessToken}`, Accept: 'application/json, text/event-stream' })
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_tasks', arguments: {} } });
}
