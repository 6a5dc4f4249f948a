import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { addTasks } from '../factories/tasks';
import { useTestApp } from '../support/test-app';

/** Any MCP client can use a person's tasks at POST /mcp, as that person and no one else. */
describe('POST /mcp with the SDK client', () => {
  const clients: Client[] = [];
  const sut = useTestApp({ beforeClose: () => Promise.all(clients.map((client) => client.close())) });
  const alice = sut.user();
  const bob = sut.user();
  let url: URL;

  beforeAll(async () => {
    url = new URL('/mcp', sut.http);
    await addTasks(sut.http, bob, "Bob's plan");
  });

  async function connect(token?: string): Promise<Client> {
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: token ? { Authorization: `Bearer ${token}` } : {} },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  it('lists the five task tools with JSON Schemas and no user id, marking delete as destructive', async () => {
    const client = await connect(alice.token);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['add_task', 'complete_task', 'delete_task', 'list_tasks', 'update_task']);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(Object.keys(tool.inputSchema.properties ?? {}).filter((name) => /user|owner/i.test(name))).toEqual([]);
    }
    expect(tools.find((tool) => tool.name === 'delete_task')?.annotations).toMatchObject({ destructiveHint: true });
    expect(tools.find((tool) => tool.name === 'list_tasks')?.annotations).toMatchObject({ readOnlyHint: true });
  });

  it("calls tools as the token's user only", async () => {
    const client = await connect(alice.token);
    const added = await client.callTool({ name: 'add_task', arguments: { title: 'From an MCP client' } });
    expect(added.isError).toBeFalsy();
    expect(added.structuredContent).toEqual({
      task: { number: 1, title: 'From an MCP client', description: null, priority: 'medium', completed: false },
    });

    const listed = await client.callTool({ name: 'list_tasks', arguments: {} });
    expect((listed.structuredContent as { tasks: { title: string }[] }).tasks.map((t) => t.title)).toEqual(['From an MCP client']);

    // Neither an argument nor _meta can make the call act for Bob.
    const spoofed = await client.callTool({
      name: 'complete_task',
      arguments: { number: 1, user_id: bob.userId },
      _meta: { 'bridle/context': { userId: bob.userId, source: 'chat' } },
    });
    expect(spoofed.structuredContent).toMatchObject({ task: { title: 'From an MCP client', completed: true } });
    const bobs = await request(sut.http).get(`/api/${bob.userId}/tasks`).set(bob.auth).expect(200);
    expect(bobs.body).toEqual([expect.objectContaining({ title: "Bob's plan", completed: false })]);

    const [audit] = await sut.app
      .get(DataSource)
      .query<{ source: string; actor_id: string; security_events: unknown[] }[]>(
        `SELECT source, actor_id, security_events FROM audit_log WHERE tool = 'complete_task' AND status = 'pending'`,
      );
    expect(audit).toEqual({
      source: 'mcp',
      actor_id: alice.userId,
      security_events: [{ type: 'IDENTITY_ARGUMENT_DISCARDED', field: 'user_id' }],
    });
  });

  it('answers bad arguments and unknown tools with an error result, not a failure', async () => {
    const client = await connect(alice.token);
    const bad = await client.callTool({ name: 'add_task', arguments: { title: 7 } });
    expect(bad).toMatchObject({
      isError: true,
      structuredContent: { code: 'INVALID_ARGUMENTS', message: 'arguments.title must be a string' },
    });
    const unknown = await client.callTool({ name: 'drop_tables', arguments: {} });
    expect(unknown).toMatchObject({ isError: true, structuredContent: { code: 'UNKNOWN_TOOL' } });
  });

  it('refuses a client without a token (401) or with a forged one', async () => {
    await expect(connect()).rejects.toThrow(/401/);
    await expect(connect('not-a-token')).rejects.toThrow(/401/);
  });

  it('checks Host and Origin, and answers other methods with 405', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const post = () => request(sut.http).post('/mcp').set(alice.auth).set('Accept', 'application/json, text/event-stream');
    const rebound = await post().set('Host', 'evil.example').send(initialize);
    expect(rebound.status).toBe(403);
    expect(rebound.body).toMatchObject({ code: 'MCP.HOST_NOT_ALLOWED' });
    const crossSite = await post().set('Origin', 'https://evil.example').send(initialize);
    expect(crossSite.status).toBe(403);
    expect(crossSite.body).toMatchObject({ code: 'MCP.ORIGIN_NOT_ALLOWED' });
    await post().set('Origin', 'http://localhost:5173').send(initialize).expect(200);
    const get = await request(sut.http).get('/mcp').set(alice.auth);
    expect(get.status).toBe(405);
    expect(get.body).toMatchObject({ code: 'HTTP.METHOD_NOT_ALLOWED' });
  });
});
