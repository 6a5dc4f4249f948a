import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { type TestApp, useTestApp } from '../support/test-app';

const ACCEPT = 'application/json, text/event-stream';

const addTask = (id: number, title: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'add_task', arguments: { title } },
});

const INVALID_REQUEST = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32600, message: expect.stringMatching(/^Invalid Request: JSON-RPC batches are not supported/) },
};

/** A personal access token that may change tasks, as a script or an MCP client would hold. */
async function accessToken(sut: TestApp, who: SignedInUser): Promise<string> {
  const created = await request(sut.http)
    .post(`/api/${who.userId}/tokens`)
    .set(who.auth)
    .send({ name: 'MCP script', scopes: ['tasks:write'], expiresInDays: 1 })
    .expect(201);
  return (created.body as { token: string }).token;
}

async function taskCount(sut: TestApp, who: SignedInUser): Promise<number> {
  const tasks = await request(sut.http).get(`/api/${who.userId}/tasks`).set(who.auth).expect(200);
  return (tasks.body as unknown[]).length;
}

/** One app at the default settings, MCP_RATE_LIMIT_PER_MINUTE 120 among them, for the first two parts. */
const sut = useTestApp();

/** One JSON-RPC message per POST: a batch would run many calls for one request. */
describe('POST /mcp refuses JSON-RPC batches', () => {
  const clients: Client[] = [];

  afterAll(() => Promise.all(clients.map((client) => client.close().catch(() => undefined))));

  const post = (token: string, body: unknown, headers: Record<string, string> = {}) =>
    request(sut.http)
      .post('/mcp')
      .set('Authorization', `Bearer ${token}`)
      .set('Accept', ACCEPT)
      .set(headers)
      .send(body as object);

  it('refuses a batch of 100 add_task calls whole: 400 Invalid Request, and no task added', async () => {
    const alice = await signUpAndIn(sut.http);
    const token = await accessToken(sut, alice);
    const batch = Array.from({ length: 100 }, (_, i) => addTask(i + 1, `Batched ${i + 1}`));

    const refused = await post(token, batch);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(INVALID_REQUEST);
    expect(await taskCount(sut, alice)).toBe(0);
    // Refused before the transport: no call reached the tool path, so none was audited either.
    const audited = await sut.app
      .get(DataSource)
      .query<unknown[]>(`SELECT 1 FROM audit_log WHERE actor_id = $1 AND source = 'mcp'`, [alice.userId]);
    expect(audited).toHaveLength(0);
  });

  it('refuses a batch inside a session too, and the session goes on', async () => {
    const alice = await signUpAndIn(sut.http);
    const token = await accessToken(sut, alice);
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', sut.http), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    clients.push(client);

    const session = { 'Mcp-Session-Id': transport.sessionId!, 'Mcp-Protocol-Version': transport.protocolVersion! };
    const refused = await post(token, [addTask(1, 'One'), addTask(2, 'Two')], session);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(INVALID_REQUEST);

    const added = await client.callTool({ name: 'add_task', arguments: { title: 'One at a time' } });
    expect(added.isError).toBeFalsy();
    expect(await taskCount(sut, alice)).toBe(1);
  });

  it.each([
    ['an empty batch', []],
    ['a batch of notifications', [{ jsonrpc: '2.0', method: 'notifications/initialized' }]],
    ['a batch of responses', [{ jsonrpc: '2.0', id: 1, result: {} }]],
  ])('answers %s with Invalid Request, not 202', async (_, batch) => {
    const alice = await signUpAndIn(sut.http);
    const refused = await post(alice.token, batch);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(INVALID_REQUEST);
  });

  it('still takes one notification (202), which runs no tool', async () => {
    const alice = await signUpAndIn(sut.http);
    const notification = { jsonrpc: '2.0', method: 'tools/call', params: { name: 'add_task', arguments: { title: 'No id' } } };
    const accepted = await post(alice.token, notification);
    expect(accepted.status).toBe(202);
    expect(await taskCount(sut, alice)).toBe(0);
  });
});

/** MCP_RATE_LIMIT_PER_MINUTE at its default, 120: it counts tool calls, one by one. */
describe('the MCP limit at its setting', () => {
  it('lets exactly the setting of 130 add_task calls in a minute through, and adds that many tasks', async () => {
    const limit = sut.config.mcpRateLimitPerMinute;
    expect(limit).toBe(120);
    const alice = await signUpAndIn(sut.http);
    const token = await accessToken(sut, alice);

    const answers = [];
    for (let i = 1; i <= 130; i++) {
      answers.push(
        await request(sut.http)
          .post('/mcp')
          .set('Authorization', `Bearer ${token}`)
          .set('Accept', ACCEPT)
          .send(addTask(i, `Task ${i}`)),
      );
    }

    const through = answers.slice(0, limit);
    expect(through.map((answer) => answer.status)).toEqual(Array(limit).fill(200));
    through.forEach((answer, i) => {
      expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: i + 1, result: { structuredContent: { task: { title: `Task ${i + 1}` } } } });
      expect(answer.body.result.isError).toBeFalsy();
    });
    const refused = answers.slice(limit);
    expect(refused.map((answer) => answer.status)).toEqual(Array(130 - limit).fill(429));
    for (const answer of refused) {
      expect(answer.body).toMatchObject({ statusCode: 429, code: 'HTTP.RATE_LIMITED' });
      const retryAfter = Number(answer.headers['retry-after-mcp']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
    expect(await taskCount(sut, alice)).toBe(limit);
  });
});

/**
 * What counts: every HTTP request to /mcp, whatever it carries. A notification, a response,
 * a refused batch, the event stream and a session's end each cost the server work (a parse,
 * a session restored from the database, a message to the other replicas), so each is one.
 */
describe('the MCP limit counts every request to /mcp', () => {
  it('lets 120 of 140 notifications sent at once through, and refuses the rest with 429 and Retry-After', async () => {
    const alice = await signUpAndIn(sut.http);
    const token = await accessToken(sut, alice);
    const kinds = [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } },
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      { jsonrpc: '2.0', method: 'notifications/made_up_by_the_client', params: { x: 1 } },
    ];
    const answers = await Promise.all(
      Array.from({ length: 140 }, (_, i) =>
        request(sut.http)
          .post('/mcp')
          .set('Authorization', `Bearer ${token}`)
          .set('Accept', ACCEPT)
          .send(kinds[i % kinds.length]),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 202)).toHaveLength(120);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(20);
    for (const answer of refused) {
      expect(answer.body).toMatchObject({ statusCode: 429, code: 'HTTP.RATE_LIMITED' });
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    }
    // The person's limit is spent: a call is refused too.
    const call = await request(sut.http)
      .post('/mcp')
      .set('Authorization', `Bearer ${token}`)
      .set('Accept', ACCEPT)
      .send(addTask(1, 'Late'));
    expect(call.status).toBe(429);
  });
});

describe('the MCP limit counts every message of an SDK client', () => {
  const LIMIT = 8;
  const clients: Client[] = [];
  const limited = useTestApp({
    env: { MCP_RATE_LIMIT_PER_MINUTE: String(LIMIT) },
    beforeClose: () => Promise.all(clients.map((client) => client.close().catch(() => undefined))),
  });

  it('counts initialize, its notification, the event stream, each notification, response, batch and call, and the session’s end', async () => {
    const alice = await signUpAndIn(limited.http);
    const token = await accessToken(limited, alice);
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', limited.http), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
      reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
    });
    // initialize, notifications/initialized and the event stream (GET): three.
    await client.connect(transport);
    clients.push(client);

    const session = { 'Mcp-Session-Id': transport.sessionId!, 'Mcp-Protocol-Version': transport.protocolVersion! };
    const post = (message: unknown) =>
      request(limited.http)
        .post('/mcp')
        .set('Authorization', `Bearer ${token}`)
        .set('Accept', ACCEPT)
        .set(session)
        .send(message as object);
    // A notification, a response, a refused batch: three more, six in all.
    expect((await post({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' })).status).toBe(202);
    expect((await post({ jsonrpc: '2.0', id: 99, result: {} })).status).toBe(202);
    expect((await post([{ jsonrpc: '2.0', method: 'notifications/initialized' }])).status).toBe(400);

    // Two calls reach the limit of eight; the next is refused and runs nothing.
    for (let i = 1; i <= 2; i++) {
      const added = await client.callTool({ name: 'add_task', arguments: { title: `Call ${i}` } });
      expect(added.isError).toBeFalsy();
    }
    expect((await post({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' })).status).toBe(429);
    await expect(client.callTool({ name: 'add_task', arguments: { title: 'One too many' } })).rejects.toThrow(/429/);
    const ending = await request(limited.http).delete('/mcp').set('Authorization', `Bearer ${token}`).set(session);
    expect(ending.status).toBe(429);
    expect(await taskCount(limited, alice)).toBe(2);
  });
});
