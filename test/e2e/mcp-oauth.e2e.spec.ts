import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { REFRESH_REUSE_WINDOW_MS } from '../../src/application/identity/oauth/oauth-token-issuer';
import { ACCESS_TTL_SECONDS, CLIENT_METADATA, McpOAuthServer } from '../support/mcp-oauth-server';
import { InMemoryOAuthClient, pkce } from '../support/oauth-client';
import { type TestApp } from '../support/test-app';

/**
 * Bridle as an MCP client's authorization server: an SDK client with nothing but the
 * server's URL discovers, registers, sends the person to consent, gets tokens with PKCE,
 * calls a tool, refreshes by itself when its token expires, and is cut off the moment the
 * person disconnects it. Then the ways a stolen or forged request is refused.
 */
describe('MCP clients over OAuth', () => {
  const oauth = new McpOAuthServer();
  const { sut, clock, alice, secrets, clients, consentRequestId, register, authorizeUrl, token, codeFor, exchange, callMcp } = oauth;
  let stdout: McpOAuthServer['stdout'];
  let replica: TestApp;
  let mcpUrl: URL;
  let resource: string;
  beforeAll(() => {
    ({ stdout, replica, mcpUrl, resource } = oauth);
  });

  it('advertises the authorization server and the protected resource', async () => {
    const challenge = await request(sut.http).post('/mcp').send({}).expect(401);
    expect(challenge.headers['www-authenticate']).toContain(`resource_metadata="${sut.http}/.well-known/oauth-protected-resource/mcp"`);

    const prm = await request(sut.http).get('/.well-known/oauth-protected-resource/mcp').expect(200);
    expect(prm.body).toMatchObject({ resource, authorization_servers: [`${sut.http}/`], resource_name: 'Bridle' });
    expect(prm.body.scopes_supported).toEqual(['tasks:read', 'tasks:write']);

    const as = await request(sut.http).get('/.well-known/oauth-authorization-server').expect(200);
    expect(as.body).toMatchObject({
      issuer: `${sut.http}/`,
      authorization_endpoint: `${sut.http}/authorize`,
      token_endpoint: `${sut.http}/token`,
      registration_endpoint: `${sut.http}/register`,
      revocation_endpoint: `${sut.http}/revoke`,
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
    });
  });

  it('takes an SDK client from the server URL to a tool call, refreshes without the person, and cuts it off on revocation', async () => {
    let consent: { code: string; state: string | null } | undefined;
    let shown: request.Response | undefined;
    const provider = new InMemoryOAuthClient(
      async (url) => {
        // The person: the browser follows the authorize URL to the consent page, which shows the request.
        if (consent) return; // after the revocation: nobody approves again
        const requestId = await consentRequestId(url);
        shown = await request(sut.http).get(`/oauth/requests/${requestId}`).set(alice.auth).expect(200);
        const answer = await request(sut.http).post(`/oauth/requests/${requestId}/approve`).set(alice.auth).send({}).expect(200);
        const back = new URL(answer.body.redirectTo);
        consent = { code: back.searchParams.get('code')!, state: back.searchParams.get('state') };
        secrets.push(consent.code);
      },
      { clientMetadata: CLIENT_METADATA },
    );

    const first = new Client({ name: 'oauth-e2e', version: '1.0.0' });
    await expect(first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }))).rejects.toThrow(UnauthorizedError);
    expect(provider.information?.client_id).toEqual(expect.any(String));
    expect(provider.authorizationUrls).toHaveLength(1);
    const authorization = provider.authorizationUrls[0];
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('resource')).toBe(resource);
    secrets.push(provider.verifier);

    // What the consent page shows: the client's own words as text, where the code goes, each scope in plain words.
    expect(shown!.body).toMatchObject({
      client: { name: 'Test <b>client</b>', uri: 'https://client.example' },
      redirectHost: '127.0.0.1:53682',
    });
    expect(shown!.body.scopes).toContainEqual({ scope: 'tasks:read', description: 'See your tasks' });

    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await transport.finishAuth(consent!.code);
    const tokens = provider.saved!;
    secrets.push(tokens.access_token, tokens.refresh_token!);
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: ACCESS_TTL_SECONDS });
    expect(tokens.access_token).toMatch(/^bridle_oat_[A-Za-z0-9_-]{43}$/);
    expect(tokens.refresh_token).toMatch(/^bridle_ort_[A-Za-z0-9_-]{43}$/);

    const client = new Client({ name: 'oauth-e2e', version: '1.0.0' });
    clients.push(client);
    await client.connect(transport);
    const listed = await client.callTool({ name: 'list_tasks', arguments: {} });
    expect(listed.isError).toBeFalsy();
    expect(JSON.stringify(listed.structuredContent)).toContain('Water the plants');
    // Its audience is /mcp: the rest of the API refuses it, whatever its scopes.
    const elsewhere = await request(sut.http)
      .get(`/api/${alice.userId}/tasks`)
      .set({ Authorization: `Bearer ${tokens.access_token}` });
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers['www-authenticate']).toContain('error="invalid_token"');

    const grants = await request(sut.http).get(`/api/${alice.userId}/oauth/grants`).set(alice.auth).expect(200);
    expect(grants.body).toEqual([
      expect.objectContaining({
        client: expect.objectContaining({ name: 'Test <b>client</b>' }),
        resource,
        lastUsedAt: expect.any(String),
      }),
    ]);

    // The access token expires: the client refreshes it by itself, and the old refresh token is spent.
    clock.advance((ACCESS_TTL_SECONDS + 1) * 1000);
    await callMcp(tokens.access_token).expect(401);
    const again = await client.callTool({ name: 'list_tasks', arguments: {} });
    expect(again.isError).toBeFalsy();
    const rotated = provider.saved!;
    secrets.push(rotated.access_token, rotated.refresh_token!);
    expect(rotated.access_token).not.toBe(tokens.access_token);
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect(provider.authorizationUrls).toHaveLength(1);

    // The person disconnects the app: the very next call is refused, and so is the refresh token.
    await request(sut.http).delete(`/api/${alice.userId}/oauth/grants/${grants.body[0].id}`).set(alice.auth).expect(204);
    await callMcp(rotated.access_token).expect(401);
    const refresh = await token({
      grant_type: 'refresh_token',
      client_id: provider.information!.client_id,
      refresh_token: rotated.refresh_token!,
    });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
    await expect(client.callTool({ name: 'list_tasks', arguments: {} })).rejects.toThrow();
    expect(provider.authorizationUrls).toHaveLength(2);
    expect((await request(sut.http).get(`/api/${alice.userId}/oauth/grants`).set(alice.auth).expect(200)).body).toEqual([]);
  });

  it('refuses a wrong PKCE verifier, and then still takes the right one', async () => {
    const { clientId, code, verifier } = await codeFor();
    const wrong = await exchange(clientId, code, pkce().verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    expect((await exchange(clientId, code, verifier)).status).toBe(200);
  });

  it('takes a code once; a second use ends the grant, so the tokens of the first stop working', async () => {
    const { clientId, code, verifier } = await codeFor();
    const first = await exchange(clientId, code, verifier);
    expect(first.status).toBe(200);
    await callMcp(first.body.access_token).expect(200);

    const second = await exchange(clientId, code, verifier);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
    await callMcp(first.body.access_token).expect(401);
    const refresh = await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: first.body.refresh_token });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('refuses a redirect URI the client did not register, and a code sent with another one', async () => {
    const clientId = (await register().expect(201)).body.client_id as string;
    const foreign = await fetch(authorizeUrl(clientId, pkce().challenge, { redirect_uri: 'https://attacker.example/callback' }), {
      redirect: 'manual',
    });
    expect({ status: foreign.status, location: foreign.headers.get('location') }).toEqual({ status: 400, location: null });
    expect(await foreign.text()).toContain('<code>invalid_request</code>: redirect_uri is not one the client registered');

    const issued = await codeFor();
    const mismatch = await exchange(issued.clientId, issued.code, issued.verifier, { redirect_uri: 'http://127.0.0.1:53682/other' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error).toBe('invalid_grant');
  });

  it('refuses a client it does not know, at /authorize and at /token, and a code of another client', async () => {
    const unknown = await fetch(authorizeUrl('4f1c1f0e-1111-4222-8333-944444444444', pkce().challenge), { redirect: 'manual' });
    expect({ status: unknown.status, location: unknown.headers.get('location') }).toEqual({ status: 400, location: null });
    expect(await unknown.text()).toContain('<code>invalid_client</code>');

    const issued = await codeFor();
    const stranger = await exchange('4f1c1f0e-1111-4222-8333-944444444444', issued.code, issued.verifier);
    expect(stranger.status).toBe(400);
    expect(stranger.body.error).toBe('invalid_client');
    const other = (await register().expect(201)).body.client_id as string;
    const borrowed = await exchange(other, issued.code, issued.verifier);
    expect(borrowed.body.error).toBe('invalid_grant');
  });

  it('lets a refresh narrow the scopes, never widen them', async () => {
    const { clientId, code, verifier } = await codeFor('tasks:read');
    const issued = await exchange(clientId, code, verifier);
    expect(issued.status).toBe(200);
    expect(issued.body.scope).toBe('tasks:read');
    const wider = await token({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: issued.body.refresh_token,
      scope: 'tasks:read tasks:write',
    });
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe('invalid_scope');

    const both = await codeFor('tasks:read tasks:write');
    const full = await exchange(both.clientId, both.code, both.verifier);
    expect(full.status).toBe(200);
    const narrower = await token({
      grant_type: 'refresh_token',
      client_id: both.clientId,
      refresh_token: full.body.refresh_token,
      scope: 'tasks:read',
    });
    expect(narrower.status).toBe(200);
    secrets.push(narrower.body.access_token, narrower.body.refresh_token);
    expect(narrower.body.scope).toBe('tasks:read');
  });

  it('issues tokens only for its own MCP resource', async () => {
    const clientId = (await register().expect(201)).body.client_id as string;
    const foreign = await fetch(authorizeUrl(clientId, pkce().challenge, { resource: 'https://other.example/mcp' }), {
      redirect: 'manual',
    });
    // Bridle's error page, never a redirect back to the client (oauth-boundary.e2e.spec.ts has every kind).
    expect({ status: foreign.status, location: foreign.headers.get('location') }).toEqual({ status: 400, location: null });
    expect(await foreign.text()).toContain('<code>invalid_target</code>');

    const unknownScope = await fetch(authorizeUrl(clientId, pkce().challenge, { scope: 'tasks:read admin:everything' }), {
      redirect: 'manual',
    });
    expect({ status: unknownScope.status, location: unknownScope.headers.get('location') }).toEqual({ status: 400, location: null });
    expect(await unknownScope.text()).toContain('<code>invalid_scope</code>');

    const issued = await codeFor();
    const atToken = await exchange(issued.clientId, issued.code, issued.verifier, { resource: 'https://other.example/mcp' });
    expect(atToken.status).toBe(400);
    expect(atToken.body.error).toBe('invalid_target');
  });

  // Two tabs, a retry, or, on PostgreSQL, two replicas taking the same refresh at once.
  it('answers one refresh token sent twice at once (to two replicas) with two pairs, and keeps the grant; a reuse after the window ends it', async () => {
    const { clientId, code, verifier } = await codeFor();
    const issued = await exchange(clientId, code, verifier);
    expect(issued.status).toBe(200);
    let current = issued.body as { access_token: string; refresh_token: string };
    const refresh = (refreshToken: string, app: TestApp = sut) =>
      token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken }, app);
    for (let round = 0; round < 10; round++) {
      const both = await Promise.all([refresh(current.refresh_token, sut), refresh(current.refresh_token, replica)]);
      for (const res of both) secrets.push(res.body.access_token, res.body.refresh_token);
      expect(both.map((res) => res.status)).toEqual([200, 200]);
      expect(both[0].body.refresh_token).not.toBe(both[1].body.refresh_token);
      // Each pair works on either replica: the grant survived.
      for (const res of both) {
        await callMcp(res.body.access_token, sut).expect(200);
        await callMcp(res.body.access_token, replica).expect(200);
      }
      current = both[round % 2].body;
    }
    const spent = current.refresh_token;
    const successor = (await refresh(spent).expect(200)).body as { access_token: string; refresh_token: string };
    secrets.push(successor.access_token, successor.refresh_token);
    clock.advance(REFRESH_REUSE_WINDOW_MS);
    expect((await refresh(spent, replica)).body.error).toBe('invalid_grant');
    await callMcp(successor.access_token, sut).expect(401);
    expect((await refresh(successor.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('detects a replayed refresh token and ends the grant', async () => {
    const { clientId, code, verifier } = await codeFor();
    const issued = await exchange(clientId, code, verifier);
    expect(issued.status).toBe(200);
    const next = await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: issued.body.refresh_token }).expect(200);
    secrets.push(next.body.access_token, next.body.refresh_token);

    clock.advance(REFRESH_REUSE_WINDOW_MS);
    const replay = await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: issued.body.refresh_token });
    expect(replay.body.error).toBe('invalid_grant');
    // The thief's replay also ends the legitimate holder's newer tokens: the grant is gone.
    await callMcp(next.body.access_token).expect(401);
    expect((await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: next.body.refresh_token })).body.error).toBe(
      'invalid_grant',
    );

    const [row] = await sut.app
      .get(DataSource)
      .query<{ error_code: string }[]>(
        `SELECT error_code FROM audit_log WHERE tool = 'oauth_token_replayed' AND arguments->>'what' = 'refresh_token'`,
      );
    expect(row.error_code).toBe('OAUTH.REFRESH_TOKEN_REUSED');
  });

  it('registers only https redirect URIs, or http on loopback, and keeps no client secret', async () => {
    for (const uri of ['http://client.example/callback', 'javascript:alert(1)', 'https://client.example/cb#fragment']) {
      const refused = await register({ redirect_uris: [uri] });
      expect({ uri, status: refused.status }).toEqual({ uri, status: 400 });
    }
    expect((await register({ client_name: 'x'.repeat(101) })).body.error).toBe('invalid_client_metadata');
    const confidential = await register({ token_endpoint_auth_method: 'client_secret_post' }).expect(201);
    expect(confidential.body.client_secret).toBeUndefined();
    expect(confidential.body.token_endpoint_auth_method).toBe('none');
  });

  it('answers the consent API only to a signed-in session, and a request only once', async () => {
    const clientId = (await register().expect(201)).body.client_id as string;
    const requestId = await consentRequestId(authorizeUrl(clientId, pkce().challenge));
    await request(sut.http).get(`/oauth/requests/${requestId}`).expect(401);

    const denied = await request(sut.http).post(`/oauth/requests/${requestId}/deny`).set(alice.auth).send({}).expect(200);
    const back = new URL(denied.body.redirectTo);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('state-1');
    const replay = await request(sut.http).post(`/oauth/requests/${requestId}/approve`).set(alice.auth).send({}).expect(404);
    expect(replay.body.code).toBe('OAUTH.REQUEST_ANSWERED');

    const expiring = await consentRequestId(authorizeUrl(clientId, pkce().challenge));
    clock.advance(11 * 60_000);
    const expired = await request(sut.http).get(`/oauth/requests/${expiring}`).set(alice.auth).expect(404);
    expect(expired.body.code).toBe('OAUTH.REQUEST_EXPIRED');
  });

  it('writes no token, code or verifier to the logs or the audit log, and audits consents and revocations', async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const audit = await sut.app
      .get(DataSource)
      .query<{ tool: string; row: string }[]>(
        `SELECT tool, row_to_json(a)::text AS row FROM audit_log a WHERE source = 'account' AND actor_id = $1`,
        [alice.userId],
      );
    const tools = new Set(audit.map((entry) => entry.tool));
    expect([...tools].sort()).toEqual(expect.arrayContaining(['grant_oauth_access', 'oauth_token_replayed', 'revoke_oauth_grant']));
    const logs = stdout.text();
    expect(secrets.length).toBeGreaterThan(10);
    for (const secret of secrets) {
      expect({ secret, inLogs: logs.includes(secret) }).toEqual({ secret, inLogs: false });
      expect({ secret, inAudit: audit.some((entry) => entry.row.includes(secret)) }).toEqual({ secret, inAudit: false });
    }
  });
});
