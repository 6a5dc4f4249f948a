import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { addTasks } from '../factories/tasks';
import { captureStdout } from '../support/log-capture';
import { useTestApp } from '../support/test-app';

/**
 * Personal access tokens: made in a session, shown once, stored as a hash, held to their
 * scopes on REST and on /mcp, refused from the request after their revocation, audited, and
 * never written to a log, an audit row or an error body.
 */
describe('personal access tokens', () => {
  const secrets: string[] = [];
  const clients: Client[] = [];
  let stdout: ReturnType<typeof captureStdout>;
  beforeAll(() => {
    stdout = captureStdout();
  });
  const sut = useTestApp({
    env: { LOG_LEVEL: 'info' },
    beforeClose: async () => {
      stdout?.restore();
      await Promise.all(clients.map((client) => client.close()));
    },
  });
  const alice = sut.user();

  beforeAll(async () => {
    await addTasks(sut.http, alice, 'Water the plants');
  });

  async function makeToken(body: object): Promise<{ id: string; token: string }> {
    const created = await request(sut.http).post(`/api/${alice.userId}/tokens`).set(alice.auth).send(body).expect(201);
    secrets.push(created.body.token);
    return created.body;
  }

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

  async function mcpClient(token: string): Promise<Client> {
    const client = new Client({ name: 'script', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', sut.http), { requestInit: { headers: bearer(token) } }));
    clients.push(client);
    return client;
  }

  it('shows the secret once and lists the token without it', async () => {
    const created = await makeToken({ name: 'Backup script', scopes: ['tasks:read'], expiresInDays: 30 });
    expect(created.token).toMatch(/^bridle_pat_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({ name: 'Backup script', scopes: ['tasks:read'], status: 'active', hint: created.token.slice(-4) });

    const listed = await request(sut.http).get(`/api/${alice.userId}/tokens`).set(alice.auth).expect(200);
    expect(listed.body).toEqual([expect.objectContaining({ id: created.id, name: 'Backup script', lastUsedAt: null })]);
    expect(JSON.stringify(listed.body)).not.toContain(created.token);

    const stored = await sut.app.get(DataSource).query(`SELECT * FROM personal_access_tokens WHERE id = $1`, [created.id]);
    expect(JSON.stringify(stored)).not.toContain(created.token.slice('bridle_pat_'.length, -4));
  });

  it('with tasks:read lists tasks over REST and MCP, and gets 403 insufficient_scope on adding one', async () => {
    const { token } = await makeToken({ name: 'Reader', scopes: ['tasks:read'] });

    const listed = await request(sut.http).get(`/api/${alice.userId}/tasks`).set(bearer(token)).expect(200);
    expect(listed.body.map((task: { title: string }) => task.title)).toEqual(['Water the plants']);
    const refused = await request(sut.http).post(`/api/${alice.userId}/tasks`).set(bearer(token)).send({ title: 'Nope' }).expect(403);
    expect(refused.body.code).toBe('AUTH.INSUFFICIENT_SCOPE');
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer .*error="insufficient_scope"/);
    expect(refused.headers['www-authenticate']).toContain('scope="tasks:write"');

    const client = await mcpClient(token);
    const result = await client.callTool({ name: 'list_tasks', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.structuredContent)).toContain('Water the plants');
    // Over MCP the refusal is HTTP's too: 403 with the scope to ask for, before the tool runs.
    const add = await fetch(new URL('/mcp', sut.http), {
      method: 'POST',
      headers: { ...bearer(token), 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'add_task', arguments: { title: 'Nope' } } }),
    });
    expect(add.status).toBe(403);
    expect(add.headers.get('www-authenticate')).toContain('scope="tasks:write"');
    await expect(client.callTool({ name: 'add_task', arguments: { title: 'Nope' } })).rejects.toThrow(/403/);
    const after = await request(sut.http).get(`/api/${alice.userId}/tasks`).set(alice.auth).expect(200);
    expect(after.body).toHaveLength(1);
  });

  it('holds tasks:write to imply tasks:read, and keeps tokens off the routes that manage the account', async () => {
    const { token } = await makeToken({ name: 'Writer', scopes: ['tasks:write'] });
    await request(sut.http).get(`/api/${alice.userId}/tasks`).set(bearer(token)).expect(200);
    await request(sut.http).post(`/api/${alice.userId}/tasks`).set(bearer(token)).send({ title: 'From a script' }).expect(201);
    await request(sut.http).get(`/api/${alice.userId}/campaigns`).set(bearer(token)).expect(403);

    const me = await request(sut.http).get('/auth/me').set(bearer(token)).expect(200);
    expect(me.body.id).toBe(alice.userId);
    const mint = await request(sut.http)
      .post(`/api/${alice.userId}/tokens`)
      .set(bearer(token))
      .send({ name: 'x', scopes: ['chat'] });
    expect(mint.status).toBe(403);
    expect(mint.body.code).toBe('AUTH.SESSION_REQUIRED');
    await request(sut.http)
      .post('/auth/password')
      .set(bearer(token))
      .send({ currentPassword: 'correct horse battery', newPassword: 'another horse battery' })
      .expect(403);
  });

  it('is refused with 401 and a WWW-Authenticate challenge from the request after its revocation', async () => {
    const { id, token } = await makeToken({ name: 'Short-lived', scopes: ['campaigns:*', 'tasks:read'] });
    await request(sut.http).get(`/api/${alice.userId}/campaigns`).set(bearer(token)).expect(200);

    await request(sut.http).delete(`/api/${alice.userId}/tokens/${id}`).set(alice.auth).expect(204);
    const refused = await request(sut.http).get(`/api/${alice.userId}/tasks`).set(bearer(token)).expect(401);
    expect(refused.body.code).toBe('AUTH.UNAUTHENTICATED');
    expect(refused.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${sut.http}/.well-known/oauth-protected-resource/mcp", error="invalid_token", ` +
        'error_description="The access token is invalid, expired or revoked"',
    );
    const mcp = await fetch(new URL('/mcp', sut.http), {
      method: 'POST',
      headers: { ...bearer(token), 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toContain('resource_metadata=');

    await request(sut.http).delete(`/api/${alice.userId}/tokens/${id}`).set(alice.auth).expect(404);
    const listed = await request(sut.http).get(`/api/${alice.userId}/tokens`).set(alice.auth).expect(200);
    expect(listed.body.find((token: { id: string }) => token.id === id)).toMatchObject({ status: 'revoked' });
  });

  it('answers a request with no token with the challenge an MCP client starts OAuth from', async () => {
    const refused = await request(sut.http).post('/mcp').send({ jsonrpc: '2.0', id: 1, method: 'ping' }).expect(401);
    expect(refused.headers['www-authenticate']).toBe(`Bearer resource_metadata="${sut.http}/.well-known/oauth-protected-resource/mcp"`);
  });

  it('refuses a bad request naming the field, and an unknown token like a revoked one', async () => {
    const cases: [object, string][] = [
      [{ name: 'x', scopes: ['tasks:rule'] }, 'scopes'],
      [{ name: 'x', scopes: [] }, 'scopes'],
      [{ name: 'x', scopes: 'tasks:read' }, 'scopes'],
      [{ name: '', scopes: ['chat'] }, 'name'],
      [{ name: 'x'.repeat(101), scopes: ['chat'] }, 'name'],
      [{ name: 'x', scopes: ['chat'], expiresInDays: 0 }, 'expiresInDays'],
      [{ name: 'x', scopes: ['chat'], expiresInDays: 400 }, 'expiresInDays'],
      [{ name: 'x', scopes: ['chat'], expiresInDays: 1.5 }, 'expiresInDays'],
    ];
    for (const [body, field] of cases) {
      const refused = await request(sut.http).post(`/api/${alice.userId}/tokens`).set(alice.auth).send(body);
      expect({ status: refused.status, field: refused.body.message }).toEqual({ status: 400, field: expect.stringContaining(field) });
    }
    const forged = `bridle_pat_${'A'.repeat(43)}`;
    const refused = await request(sut.http).get(`/api/${alice.userId}/tasks`).set(bearer(forged)).expect(401);
    expect(JSON.stringify(refused.body)).not.toContain(forged);
  });

  it('audits creation, use from a new client address and revocation, and never writes a secret to a row or a log', async () => {
    const { id, token } = await makeToken({ name: 'Audited', scopes: ['tasks:read'] });
    await request(sut.http).get(`/api/${alice.userId}/tasks`).set(bearer(token)).expect(200);
    await request(sut.http).get(`/api/${alice.userId}/tasks`).set(bearer(token)).expect(200);
    await request(sut.http).delete(`/api/${alice.userId}/tokens/${id}`).set(alice.auth).expect(204);

    const rows = await sut.app
      .get(DataSource)
      .query(`SELECT tool, status, arguments, result FROM audit_log WHERE source = 'account' AND actor_id = $1 ORDER BY seq`, [
        alice.userId,
      ]);
    const mine = rows.filter(
      (row: { arguments: { tokenId?: string; name?: string }; result: { tokenId?: string } | null }) =>
        [row.arguments.tokenId, row.result?.tokenId].includes(id) || row.arguments.name === 'Audited',
    );
    expect(mine.map((row: { tool: string; status: string }) => `${row.tool}:${row.status}`)).toEqual([
      'create_access_token:pending',
      'create_access_token:succeeded',
      'access_token_new_address:succeeded',
      'revoke_access_token:pending',
      'revoke_access_token:succeeded',
    ]);

    const everything = JSON.stringify(await sut.app.get(DataSource).query(`SELECT * FROM audit_log`)) + stdout.text();
    for (const secret of secrets) expect(everything).not.toContain(secret.slice('bridle_pat_'.length));
  });
});
