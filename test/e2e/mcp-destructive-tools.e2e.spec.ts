import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { addTasks, taskTitles } from '../factories/tasks';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { useTestApp } from '../support/test-app';

/** For the enclosing block: an app listening on a real socket, a person with tasks 1..3, and an SDK client as that person. */
function useAppWith(env: Record<string, string>) {
  let client: Client | undefined;
  const sut = useTestApp({ env, beforeClose: () => client?.close() });
  const user = sut.user();

  beforeAll(async () => {
    await addTasks(sut.http, user, 'Buy milk', 'Dentist', 'Call mum');
    client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', sut.http), {
        requestInit: { headers: { Authorization: `Bearer ${user.token}` } },
      }),
    );
  });

  return {
    sut,
    user,
    get client(): Client {
      return client ?? unconnected();
    },
    titles: (who: SignedInUser = user) => taskTitles(sut.http, who),
    deleteAudit: () =>
      sut.app
        .get(DataSource)
        .query<{ source: string; status: string; error_code: string | null; arguments: unknown }[]>(
          `SELECT source, status, error_code, arguments FROM audit_log WHERE tool = 'delete_task' AND actor_id = $1 ORDER BY seq`,
          [user.userId],
        ),
  };
}

function unconnected(): never {
  throw new Error('the client connects in beforeAll: use it from a test');
}

describe('POST /mcp delete_task by default (MCP_DESTRUCTIVE_TOOLS unset)', () => {
  const app = useAppWith({});

  it('deletes nothing, by scope or by number, and says where the question waits for the person', async () => {
    const all = await app.client.callTool({ name: 'delete_task', arguments: { scope: 'all' } });
    expect(all.isError).toBe(true);
    expect(all.structuredContent).toMatchObject({
      code: 'CONFIRMATION_REQUIRED',
      message: expect.stringMatching(/cannot ask .*nothing was deleted yet\. The question waits for them at http:\/\/\S+ until /),
    });

    const one = await app.client.callTool({ name: 'delete_task', arguments: { number: 2 } });
    expect(one).toMatchObject({ isError: true, structuredContent: { code: 'CONFIRMATION_REQUIRED' } });
    // Where to: the console, opened on the conversation that holds the question, at this server's public address.
    const { message, details } = one.structuredContent as { message: string; details: { conversationId: string; confirmationId: string } };
    expect(message).toContain(`${app.sut.http}/#chat?conversation=${details.conversationId}&confirmation=${details.confirmationId} until `);
    expect(message).toMatch(/: Do you really want to delete 'Dentist'\?$/);

    expect(await app.titles()).toEqual(['Buy milk', 'Dentist', 'Call mum']);
    // Each call looked first (a dry run, which deletes nothing), then was refused.
    expect(await app.deleteAudit()).toEqual([
      { source: 'mcp', status: 'confirmation_required', error_code: null, arguments: { scope: 'all' } },
      { source: 'mcp', status: 'rejected', error_code: 'CONFIRMATION_REQUIRED', arguments: { scope: 'all' } },
      { source: 'mcp', status: 'confirmation_required', error_code: null, arguments: { number: 2 } },
      { source: 'mcp', status: 'rejected', error_code: 'CONFIRMATION_REQUIRED', arguments: { number: 2 } },
    ]);
  });

  it("asks in the console exactly what the dry run found: the person's yes there deletes it once, their no deletes nothing", async () => {
    const asked = async (args: Record<string, unknown>) => {
      const result = await app.client.callTool({ name: 'delete_task', arguments: args });
      return (result.structuredContent as { details: { conversationId: string; confirmationId: string } }).details;
    };
    const messages = (conversationId: string, who: SignedInUser = app.user) =>
      request(app.sut.http).get(`/api/${who.userId}/conversations/${conversationId}/messages`).set(who.auth);
    const answer = (who: SignedInUser, question: { conversationId: string; confirmationId: string }, text: string) =>
      request(app.sut.http)
        .post(`/api/${who.userId}/chat`)
        .set(who.auth)
        .send({ message: text, conversationId: question.conversationId, confirmationId: question.confirmationId });

    const callMum = await asked({ query: 'call mum' });
    // The console shows it as any chat question: the server's words, and the stored call "yes" runs.
    const shown = (await messages(callMum.conversationId).expect(200)).body as {
      items: { role: string; content: string }[];
      pendingConfirmation: { id: string; tool: string; arguments: unknown };
    };
    expect(shown.items).toEqual([expect.objectContaining({ role: 'assistant', content: expect.stringMatching(/'Call mum'/) })]);
    expect(shown.pendingConfirmation).toMatchObject({ id: callMum.confirmationId, tool: 'delete_task' });

    // Nobody else sees it or answers it.
    const mallory = await signUpAndIn(app.sut.http);
    await messages(callMum.conversationId, mallory).expect(404);
    await answer(mallory, callMum, 'yes delete').expect(404);

    await answer(app.user, callMum, 'yes delete').expect(200);
    expect(await app.titles()).toEqual(['Buy milk', 'Dentist']);
    // Once: the same yes again runs nothing.
    await answer(app.user, callMum, 'yes delete').expect(200);
    expect(await app.titles()).toEqual(['Buy milk', 'Dentist']);

    const dentist = await asked({ number: 2 });
    await answer(app.user, dentist, 'no').expect(200);
    expect(await app.titles()).toEqual(['Buy milk', 'Dentist']);

    const deleted = (await app.deleteAudit()).filter((row) => row.status === 'succeeded');
    expect(deleted).toEqual([{ source: 'chat', status: 'succeeded', error_code: null, arguments: expect.anything() }]);
  });

  it('answers a task that is not there with not found, not with a confirmation to give', async () => {
    const before = await app.titles();
    const missing = await app.client.callTool({ name: 'delete_task', arguments: { number: 99 } });
    expect(missing).toMatchObject({ isError: true, structuredContent: { code: 'TASK_NOT_FOUND' } });
    const nothingMatches = await app.client.callTool({ name: 'delete_task', arguments: { query: 'no such thing' } });
    expect((nothingMatches.structuredContent as { code: string }).code).not.toBe('CONFIRMATION_REQUIRED');
    expect(await app.titles()).toEqual(before);
  });

  it('describes delete_task as what this server does with it: asked in the client, or else in the console', async () => {
    const { tools } = await app.client.listTools();
    const description = tools.find((tool) => tool.name === 'delete_task')?.description;
    expect(description).toMatch(/^Delete tasks: /);
    expect(description).toMatch(
      /Over this connection it deletes only after the person confirms in their MCP client.*CONFIRMATION_REQUIRED.*waits for the person in the Bridle console/,
    );
    expect(description).not.toMatch(/which the server asks for/);
  });
});

describe('POST /mcp delete_task with MCP_DESTRUCTIVE_TOOLS=allow', () => {
  const app = useAppWith({ MCP_DESTRUCTIVE_TOOLS: 'allow' });

  it('says in its description that it deletes without asking', async () => {
    const { tools } = await app.client.listTools();
    expect(tools.find((tool) => tool.name === 'delete_task')?.description).toMatch(/deletes at once, without asking the person/);
  });

  it('deletes exactly the named task, once, and the audit shows it', async () => {
    const deleted = await app.client.callTool({ name: 'delete_task', arguments: { number: 2 } });
    expect(deleted.isError).toBeFalsy();
    expect(deleted.structuredContent).toEqual({
      deleted: [{ number: 2, title: 'Dentist', description: null, priority: 'medium', completed: false }],
    });
    const again = await app.client.callTool({ name: 'delete_task', arguments: { number: 2 } });
    expect(again).toMatchObject({ isError: true, structuredContent: { code: 'TASK_NOT_FOUND' } });

    expect(await app.titles()).toEqual(['Buy milk', 'Call mum']);
    expect(await app.deleteAudit()).toEqual([
      { source: 'mcp', status: 'pending', error_code: null, arguments: { number: 2 } },
      { source: 'mcp', status: 'succeeded', error_code: null, arguments: { number: 2 } },
      // The second finds no task 2: it does nothing, so it is one row.
      { source: 'mcp', status: 'failed', error_code: 'TASK_NOT_FOUND', arguments: { number: 2 } },
    ]);
  });
});
