import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { DataSource } from 'typeorm';
import { addTasks, taskTitles } from '../factories/tasks';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { useTestApp } from '../support/test-app';

/**
 * Stateful /mcp sessions: bound to their person, carrying the server's questions
 * (elicitation before a deletion) and resource notifications; the stateless mode stays.
 */
describe('/mcp sessions', () => {
  const clients: Client[] = [];
  const sut = useTestApp({ beforeClose: () => Promise.all(clients.map((client) => client.close().catch(() => undefined))) });
  const alice = sut.user();
  const bob = sut.user();
  const url = () => new URL('/mcp', sut.http);

  async function connect(
    who: SignedInUser,
    answer?: (message: string) => ElicitResult,
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport; asked: string[] }> {
    const asked: string[] = [];
    const client = new Client({ name: 'e2e', version: '1.0.0' }, { capabilities: answer ? { elicitation: {} } : {} });
    if (answer) {
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(request.params.message);
        return answer(request.params.message);
      });
    }
    const transport = new StreamableHTTPClientTransport(url(), { requestInit: { headers: who.auth } });
    await client.connect(transport);
    clients.push(client);
    return { client, transport, asked };
  }

  const titles = (who: SignedInUser) => taskTitles(sut.http, who);
  const add = (who: SignedInUser, title: string) => addTasks(sut.http, who, title);
  const rpc = (headers: Record<string, string>, body: object) =>
    fetch(url(), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });

  it('opens a session on initialize, answers it only to its own person, and ends it on DELETE', async () => {
    const { client, transport } = await connect(alice);
    const sessionId = transport.sessionId!;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await client.listTools()).tools).toHaveLength(5);

    const ping = { jsonrpc: '2.0', id: 9, method: 'ping' };
    const foreign = await rpc({ ...bob.auth, 'Mcp-Session-Id': sessionId, 'Mcp-Protocol-Version': '2025-06-18' }, ping);
    expect(foreign.status).toBe(404);
    const unknown = await rpc({ ...alice.auth, 'Mcp-Session-Id': '00000000-0000-4000-8000-000000000000' }, ping);
    expect(unknown.status).toBe(404);
    // The session id is no credential: without the bearer token it is a 401 like any request.
    expect((await rpc({ 'Mcp-Session-Id': sessionId }, ping)).status).toBe(401);

    await transport.terminateSession();
    expect((await rpc({ ...alice.auth, 'Mcp-Session-Id': sessionId }, ping)).status).toBe(404);
  });

  it('still serves a message without a session statelessly, and refuses GET without one', async () => {
    const listed = await rpc(alice.auth, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('mcp-session-id')).toBeNull();
    const stream = await fetch(url(), { headers: { ...alice.auth, Accept: 'text/event-stream' } });
    expect(stream.status).toBe(405);
  });

  it('asks the person before delete_task: declining deletes nothing, accepting deletes once', async () => {
    await add(alice, 'Buy milk');
    await add(alice, 'Dentist');
    let reply: ElicitResult = { action: 'decline' };
    const { client, asked } = await connect(alice, () => reply);

    const declined = await client.callTool({ name: 'delete_task', arguments: { query: 'milk' } });
    expect(declined.isError).toBeFalsy();
    expect(declined.structuredContent).toMatchObject({ deleted: [], confirmed: false });
    expect(asked).toEqual(["Do you really want to delete 'Buy milk'?"]);
    expect(await titles(alice)).toEqual(expect.arrayContaining(['Buy milk', 'Dentist']));

    reply = { action: 'accept', content: { confirm: false } };
    await client.callTool({ name: 'delete_task', arguments: { query: 'milk' } });
    reply = { action: 'cancel' };
    await client.callTool({ name: 'delete_task', arguments: { query: 'milk' } });
    expect(await titles(alice)).toContain('Buy milk');

    reply = { action: 'accept', content: { confirm: true } };
    const accepted = await client.callTool({ name: 'delete_task', arguments: { query: 'milk' } });
    expect(accepted.structuredContent).toMatchObject({ deleted: [{ title: 'Buy milk' }] });
    expect(await titles(alice)).not.toContain('Buy milk');
    expect(await titles(alice)).toContain('Dentist');

    const rows = await sut.app
      .get(DataSource)
      .query<{ status: string }[]>(`SELECT status FROM audit_log WHERE tool = 'delete_task' AND actor_id = $1 ORDER BY seq`, [
        alice.userId,
      ]);
    // Four questions (each a dry run), one deletion: its pending row before, its outcome after.
    expect(rows.map((row) => row.status)).toEqual([
      'confirmation_required',
      'confirmation_required',
      'confirmation_required',
      'confirmation_required',
      'pending',
      'succeeded',
    ]);
  });

  it('refuses delete_task as before for a client that cannot be asked', async () => {
    await add(alice, 'Keep me');
    const { client } = await connect(alice);
    const refused = await client.callTool({ name: 'delete_task', arguments: { query: 'Keep me' } });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ code: 'CONFIRMATION_REQUIRED' });
    expect(await titles(alice)).toContain('Keep me');
  });

  it("serves the person's tasks as resources, and tells a subscriber when they change", async () => {
    await add(bob, 'Water the plants');
    const { client } = await connect(bob);
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(['bridle://tasks', 'bridle://tasks/1']);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(['bridle://tasks/{number}']);

    const list = await client.readResource({ uri: 'bridle://tasks' });
    const text = (list.contents[0] as { text: string }).text;
    expect(JSON.parse(text)).toMatchObject({ tasks: [{ number: 1, title: 'Water the plants' }] });
    const one = await client.readResource({ uri: 'bridle://tasks/1' });
    expect(JSON.parse((one.contents[0] as { text: string }).text)).toMatchObject({ number: 1, title: 'Water the plants' });
    // Alice's tasks are not Bob's: another person's number reads as missing.
    await expect(client.readResource({ uri: 'bridle://tasks/2' })).rejects.toMatchObject({
      code: -32002,
      message: expect.stringMatching(/No task 2/),
      data: { uri: 'bridle://tasks/2' },
    });
    await expect(client.readResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(/Unknown resource/);

    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push(notification.params.uri);
    });
    await client.subscribeResource({ uri: 'bridle://tasks' });
    await add(bob, 'Feed the cat');
    await add(alice, 'Not Bob’s');
    await waitFor(() => updates.length >= 1);
    expect(updates).toEqual(['bridle://tasks']);
    await client.unsubscribeResource({ uri: 'bridle://tasks' });
    await add(bob, 'After unsubscribing');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(updates).toEqual(['bridle://tasks']);
  });

  it('offers two prompts with the tasks attached, and checks their arguments', async () => {
    const { client } = await connect(bob);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['plan_my_day', 'tidy_up']);
    const plan = await client.getPrompt({ name: 'plan_my_day', arguments: { focus: 'the garden' } });
    expect(plan.messages[0].content).toMatchObject({ type: 'resource', resource: { uri: 'bridle://tasks' } });
    expect(JSON.stringify(plan.messages[0].content)).toContain('Water the plants');
    expect(plan.messages[1].content).toMatchObject({ type: 'text', text: expect.stringContaining('"the garden"') });
    await expect(client.getPrompt({ name: 'plan_my_day', arguments: { sudo: 'yes' } })).rejects.toThrow(/takes no argument sudo/);
    await expect(client.getPrompt({ name: 'nope' })).rejects.toThrow(/no prompt named/);
  });

  it('closes the least recently used session past the per-person limit', async () => {
    const carol = await signUpAndIn(sut.http);
    const opened = [];
    for (let i = 0; i < 11; i++) opened.push(await connect(carol));
    const first = opened[0].transport.sessionId!;
    const last = opened[10].transport.sessionId!;
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    expect((await rpc({ ...carol.auth, 'Mcp-Session-Id': first }, ping)).status).toBe(404);
    expect((await rpc({ ...carol.auth, 'Mcp-Session-Id': last }, ping)).status).toBe(200);
  });
});

async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
}
