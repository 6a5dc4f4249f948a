import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { addTasks } from '../factories/tasks';
import { snoozeTaskTool } from '../fixtures/snooze-task.tool';
import type { SignedInUser } from '../support/accounts';
import { useTestApp } from '../support/test-app';

interface ToolCallBody {
  readonly tool: string;
  readonly title: string;
  readonly changesTasks: boolean;
  readonly success: boolean;
  readonly result?: unknown;
  readonly error?: { readonly code: string };
}

interface AuditItem {
  readonly source: string;
  readonly tool: string;
  readonly status: string;
  readonly policy: { readonly rule: string | null } | null;
}

/**
 * A todo tool that only this test registers (one descriptor, snoozeTaskTool, handed to the app
 * as it starts) is served by every door with nothing else written for it: listed and called
 * over MCP, called from the chat by the offline model, called over REST, decided by the policy
 * and audited, and labelled with its title where the console reads a tool call.
 */
describe('a todo tool registered in test code alone', () => {
  const clients: Client[] = [];
  const sut = useTestApp({ todoTools: [snoozeTaskTool], beforeClose: () => Promise.all(clients.map((client) => client.close())) });
  const admin = sut.user({ admin: true });
  const ada = sut.user();

  beforeAll(async () => {
    await addTasks(sut.http, ada, 'Dentist', 'Call mum', 'Buy milk', 'Water the plants', 'Pay rent');
  });

  async function mcpClient(user: SignedInUser): Promise<Client> {
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', sut.http), { requestInit: { headers: { ...user.auth } } }));
    clients.push(client);
    return client;
  }
  const chat = (message: string) => request(sut.http).post(`/api/${ada.userId}/chat`).set(ada.auth).send({ message }).expect(200);
  const callTool = (name: string, args: unknown) =>
    request(sut.http)
      .post(`/api/${ada.userId}/tools/${name}`)
      .set(ada.auth)
      .send(args as object);
  const priorityOf = async (taskNumber: number) =>
    ((await request(sut.http).get(`/api/${ada.userId}/tasks/${taskNumber}`).set(ada.auth).expect(200)).body as { priority: string })
      .priority;

  it('is listed over MCP with its title, and runs there', async () => {
    const client = await mcpClient(ada);
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'snooze_task')).toMatchObject({
      title: 'Snooze a task',
      annotations: { readOnlyHint: false, destructiveHint: false },
    });
    expect(tools.find((tool) => tool.name === 'add_task')?.title).toBe('Add a task');
    const called = await client.callTool({ name: 'snooze_task', arguments: { number: 1 } });
    expect(called.structuredContent).toEqual({
      task: { number: 1, title: 'Dentist', description: null, priority: 'low', completed: false },
      previousPriority: 'medium',
    });
  });

  it('is called from the chat by its own words, and every tool call the chat answers carries its title', async () => {
    const answer = (await chat('snooze task 2')).body as { conversationId: string; response: string; toolCalls: ToolCallBody[] };
    expect(answer.toolCalls).toEqual([
      expect.objectContaining({ tool: 'snooze_task', title: 'Snooze a task', changesTasks: true, success: true }),
    ]);
    expect(answer.response).toContain("'Call mum'");
    expect(await priorityOf(2)).toBe('low');

    const history = await request(sut.http)
      .get(`/api/${ada.userId}/conversations/${answer.conversationId}/messages`)
      .set(ada.auth)
      .expect(200);
    const calls = (history.body as { items: { toolCalls: ToolCallBody[] }[] }).items.flatMap((message) => message.toolCalls);
    expect(calls.map((call) => [call.title, call.changesTasks])).toEqual([['Snooze a task', true]]);

    const listed = (await chat('show my tasks')).body as { toolCalls: ToolCallBody[] };
    expect(listed.toolCalls.map((call) => [call.tool, call.title, call.changesTasks])).toEqual([['list_tasks', 'Read the list', false]]);
  });

  it('is called over REST with its arguments as the body, refusing bad input by field and an unknown tool', async () => {
    const called = await callTool('snooze_task', { number: 3 }).expect(200);
    expect(called.body).toEqual({
      task: { number: 3, title: 'Buy milk', description: null, priority: 'low', completed: false },
      previousPriority: 'medium',
    });
    const bad = await callTool('snooze_task', { number: 'three' }).expect(400);
    expect(bad.body).toMatchObject({ code: 'VALIDATION.FAILED', message: expect.stringContaining('number') });
    await callTool('snooze_task', { number: 99 }).expect(404);
    expect((await callTool('wake_task', {}).expect(404)).body).toMatchObject({ code: 'TOOLS.NOT_FOUND' });
    // Reading the list is no call the API makes here: its own route reads it.
    expect((await callTool('list_tasks', {}).expect(404)).body).toMatchObject({ code: 'TOOLS.NOT_FOUND' });
  });

  it('is decided by the policy at every door, each refusal audited; a call put to the person is 409 over REST', async () => {
    await request(sut.http)
      .put('/admin/policy')
      .set(admin.auth)
      .send({
        rules: [
          { name: 'no-snoozing', tools: ['snooze_task'], effect: 'deny', reason: 'Not today.' },
          { name: 'deletes-ask', tools: ['delete_task'], effect: 'ask-person' },
        ],
        reason: 'A tool of its own',
      })
      .expect(200);

    const client = await mcpClient(ada);
    const overMcp = await client.callTool({ name: 'snooze_task', arguments: { number: 4 } });
    expect(overMcp).toMatchObject({ isError: true, structuredContent: { code: 'POLICY_DENIED' } });
    const inChat = (await chat('snooze task 4')).body as { toolCalls: ToolCallBody[] };
    expect(inChat.toolCalls).toEqual([expect.objectContaining({ tool: 'snooze_task', title: 'Snooze a task', success: false })]);
    expect(inChat.toolCalls[0].error).toMatchObject({ code: 'POLICY_DENIED' });
    const overRest = await callTool('snooze_task', { number: 4 }).expect(403);
    expect(overRest.body).toMatchObject({ code: 'POLICY.DENIED', message: expect.stringContaining('Not today.') });
    expect(await priorityOf(4)).toBe('medium');

    const asked = await callTool('delete_task', { number: 5 }).expect(409);
    expect(asked.body).toMatchObject({ code: 'TOOLS.CONFIRMATION_REQUIRED', message: expect.stringContaining('confirmation') });
    await request(sut.http).get(`/api/${ada.userId}/tasks/5`).set(ada.auth).expect(200);

    const audit = await request(sut.http)
      .get(`/admin/audit-logs?${new URLSearchParams({ actorId: ada.userId, limit: '100' }).toString()}`)
      .set(admin.auth)
      .expect(200);
    const rows = (audit.body as { items: AuditItem[] }).items.map((row) => [row.source, row.tool, row.status, row.policy?.rule ?? null]);
    for (const source of ['mcp', 'chat', 'api']) {
      expect(rows).toContainEqual([source, 'snooze_task', 'succeeded', null]);
      expect(rows).toContainEqual([source, 'snooze_task', 'rejected', 'no-snoozing']);
    }
    expect(rows).toContainEqual(['api', 'delete_task', 'rejected', 'deletes-ask']);
  });
});
