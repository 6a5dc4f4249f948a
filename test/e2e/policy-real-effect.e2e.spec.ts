import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { addTasks, type TaskBody, taskTitles } from '../factories/tasks';
import { type SignedInUser, signUpAndIn } from '../support/accounts';
import { useTestApp } from '../support/test-app';
import { asText } from '../support/text-body';

interface ChatTurn {
  conversationId: string;
  toolCalls: { tool: string; success: boolean; error?: { code: string } }[];
  pendingConfirmation: { tool: string } | null;
}

interface AuditRow {
  source: string;
  tool: string;
  status: string;
  arguments: Record<string, unknown>;
  errorCode: string | null;
  policy: { version: number; rule: string | null; effect: string } | null;
}

/**
 * A policy decides on what a call will really do, not on its words (docs/policies.md, "What a
 * rule reads of a call"): a `scope` deletion touches every task it resolves to; a PATCH that
 * completes a task is complete_task; a limit's counter belongs to the rule as it is defined; a
 * rule's people are the accounts they were when the version was stored, whatever replica reads it.
 */
describe('a stored policy decides on what a call really does', () => {
  const clients: Client[] = [];
  const sut = useTestApp({ beforeClose: () => Promise.all(clients.map((client) => client.close().catch(() => undefined))) });
  const admin = sut.user({ admin: true });
  const ada = sut.user();
  const bob = sut.user();
  const carol = sut.user();
  const dave = sut.user();

  const store = async (rules: unknown[], reason = 'test') =>
    (await request(sut.http).put('/admin/policy').set(admin.auth).send({ rules, reason }).expect(200)).body as { version: number };

  const chat = async (who: SignedInUser, message: string, conversationId?: string): Promise<ChatTurn> =>
    (await request(sut.http).post(`/api/${who.userId}/chat`).set(who.auth).send({ message, conversationId }).expect(200)).body as ChatTurn;

  /** An MCP client that cannot be asked anything (no elicitation): what the policy lets run unasked runs at once. */
  async function mcpClient(who: SignedInUser): Promise<Client> {
    const client = new Client({ name: 'policy-effect-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', sut.http), { requestInit: { headers: who.auth } }));
    clients.push(client);
    return client;
  }

  const apiRows = async (who: SignedInUser): Promise<AuditRow[]> =>
    (
      (await request(sut.http).get(`/admin/audit-logs?source=api&actorId=${who.userId}&limit=100`).set(admin.auth).expect(200)).body as {
        items: AuditRow[];
      }
    ).items;

  it('counts the tasks a scope deletion resolves to: "MCP deletes at most 3 unasked" refuses scope all and scope completed', async () => {
    await store([
      { name: 'mcp-deletes-few', tools: ['delete_task'], sources: ['mcp'], when: { items: { atMost: 3 } }, effect: 'allow' },
      { name: 'no-mass-deletes', tools: ['delete_task'], effect: 'deny', reason: 'Never more than 3 at once.' },
    ]);
    const added = await addTasks(sut.http, ada, ...['A', 'B', 'C', 'D', 'E', 'F']);
    for (const task of added.slice(0, 5))
      await request(sut.http).post(`/api/${ada.userId}/tasks/${task.number}/complete`).set(ada.auth).expect(200);
    const client = await mcpClient(ada);

    for (const scope of ['all', 'completed']) {
      const refused = await client.callTool({ name: 'delete_task', arguments: { scope } });
      expect({ scope, refused }).toMatchObject({
        scope,
        refused: { isError: true, structuredContent: { code: 'POLICY_DENIED', details: { rule: 'no-mass-deletes' } } },
      });
    }
    expect(await taskTitles(sut.http, ada)).toEqual(['A', 'B', 'C', 'D', 'E', 'F']);
    // Each refusal's row records how many tasks the policy decided on.
    const refusedRows = (
      (await request(sut.http).get(`/admin/audit-logs?actorId=${ada.userId}&tool=delete_task&limit=10`).set(admin.auth).expect(200))
        .body as { items: AuditRow[] }
    ).items;
    expect(refusedRows.map((row) => [row.arguments, row.status, row.policy])).toEqual([
      [{ scope: 'completed' }, 'rejected', { version: expect.any(Number), rule: 'no-mass-deletes', effect: 'deny', items: 5 }],
      [{ scope: 'all' }, 'rejected', { version: expect.any(Number), rule: 'no-mass-deletes', effect: 'deny', items: 6 }],
    ]);
    // A dry run of a policy that lets five go unasked reads those counts back: the five completed would have gone, not all six.
    const dryRun = await request(sut.http)
      .post('/admin/policy/dry-run')
      .set(admin.auth)
      .send({
        rules: [
          { name: 'mcp-deletes-five', tools: ['delete_task'], sources: ['mcp'], when: { items: { atMost: 5 } }, effect: 'allow' },
          { name: 'no-mass-deletes', tools: ['delete_task'], effect: 'deny', reason: 'Never more than 5 at once.' },
        ],
      })
      .expect(200);
    expect((dryRun.body as { changes: { from: string; to: string; calls: number }[] }).changes).toEqual([
      expect.objectContaining({ from: 'deny', to: 'allow', rule: 'mcp-deletes-five', calls: 1 }),
    ]);

    // The same rule lets three named tasks go unasked.
    const few = await client.callTool({ name: 'delete_task', arguments: { numbers: [1, 2, 3] } });
    expect(few.isError ?? false).toBe(false);
    expect(await taskTitles(sut.http, ada)).toEqual(['D', 'E', 'F']);

    // In the chat the question is the dry run: a deletion of everything is refused before anyone is asked about it.
    await addTasks(sut.http, ada, 'G');
    const asked = await chat(ada, 'delete everything');
    expect(asked.pendingConfirmation ?? null).toBeNull();
    expect(asked.toolCalls).toEqual([
      expect.objectContaining({ tool: 'delete_task', success: false, error: expect.objectContaining({ code: 'POLICY_DENIED' }) }),
    ]);
    expect(await taskTitles(sut.http, ada)).toEqual(['D', 'E', 'F', 'G']);
  });

  it('decides a PATCH as every tool it amounts to: completing is complete_task, reopening update_task', async () => {
    await store([
      {
        name: 'no-api-completions',
        tools: ['complete_task'],
        sources: ['api'],
        people: [bob.email],
        effect: 'deny',
        reason: 'Done is said in the chat.',
      },
      { name: 'no-api-changes', tools: ['update_task'], sources: ['api'], people: [carol.email], effect: 'deny', reason: 'Read only.' },
    ]);
    const [bobs] = await addTasks(sut.http, bob, 'Call mum');
    const path = `/api/${bob.userId}/tasks/${bobs.number}`;
    for (const body of [{ completed: true }, { title: 'Call mum today', completed: true }]) {
      const refused = await request(sut.http).patch(path).set(bob.auth).send(body).expect(403);
      expect(refused.body).toMatchObject({ code: 'POLICY.DENIED' });
    }
    // Nothing of the refused PATCH ran: not its rename either.
    expect((await request(sut.http).get(path).set(bob.auth).expect(200)).body as TaskBody).toMatchObject({
      title: 'Call mum',
      completed: false,
    });
    expect((await apiRows(bob)).map((row) => [row.tool, row.arguments, row.policy?.rule])).toEqual([
      ['complete_task', { number: 1, title: 'Call mum today', completed: true }, 'no-api-completions'],
      ['complete_task', { number: 1, completed: true }, 'no-api-completions'],
    ]);
    // A rename alone is no completion.
    await request(sut.http).patch(path).set(bob.auth).send({ title: 'Call mum today' }).expect(200);

    // Carol may not change tasks: completing is not a change of its fields, reopening is.
    const [carols] = await addTasks(sut.http, carol, 'Water plants');
    const carolsPath = `/api/${carol.userId}/tasks/${carols.number}`;
    await request(sut.http).patch(carolsPath).set(carol.auth).send({ completed: true }).expect(200);
    await request(sut.http).patch(carolsPath).set(carol.auth).send({ completed: false }).expect(403);
    expect(((await request(sut.http).get(carolsPath).set(carol.auth).expect(200)).body as TaskBody).completed).toBe(true);
  });

  it('gives an edited limit a fresh counter, and keeps counting under a version that keeps the rule as it was', async () => {
    const cap = { name: 'add-cap', tools: ['add_task'], sources: ['api'], people: [dave.email], effect: 'limit' };
    await store([{ ...cap, limit: { max: 1, per: 'person', window: 'week' } }]);
    await addTasks(sut.http, dave, 'One');
    const weekly = await request(sut.http).post(`/api/${dave.userId}/tasks`).set(dave.auth).send({ title: 'Two' }).expect(429);
    expect((weekly.body as { message: string }).message).toMatch(/More can run in 7 days\.$/);

    // Edited to one a minute: its own counter, on which nothing was counted yet.
    await store([{ ...cap, limit: { max: 1, per: 'person', window: 'minute' } }]);
    await request(sut.http).post(`/api/${dave.userId}/tasks`).set(dave.auth).send({ title: 'Two' }).expect(201);
    const minutely = await request(sut.http).post(`/api/${dave.userId}/tasks`).set(dave.auth).send({ title: 'Three' }).expect(429);
    expect((minutely.body as { message: string }).message).toMatch(/More can run in \d+ seconds\.$/);

    // Re-pointed at another tool under the same name: it counts that tool's calls, from none.
    await store([{ ...cap, tools: ['complete_task'], limit: { max: 1, per: 'person', window: 'minute' } }]);
    await request(sut.http).post(`/api/${dave.userId}/tasks/1/complete`).set(dave.auth).expect(200);
    await request(sut.http).post(`/api/${dave.userId}/tasks/2/complete`).set(dave.auth).expect(429);

    // A version that adds a rule and renames this one, its definition unchanged, keeps its count.
    await store([
      { name: 'nothing-for-admins', tools: ['delete_task'], roles: ['admin'], effect: 'deny', reason: 'Admins keep their lists.' },
      { ...cap, name: 'complete-cap', tools: ['complete_task'], limit: { max: 1, per: 'person', window: 'minute' } },
    ]);
    await request(sut.http).post(`/api/${dave.userId}/tasks/2/complete`).set(dave.auth).expect(429);
  });

  it("decides a rule's people as the accounts they were when it was stored, after an email changes hands and on a restart", async () => {
    const erin = await signUpAndIn(sut.http);
    await store([
      { name: 'erin-adds-nothing', tools: ['add_task'], sources: ['api'], people: [erin.email], effect: 'deny', reason: 'No.' },
    ]);
    await request(sut.http).post(`/api/${erin.userId}/tasks`).set(erin.auth).send({ title: 'Mine' }).expect(403);

    // Erin's account goes; someone else registers her email.
    await sut.app.get(DataSource).query(`DELETE FROM users WHERE id = $1`, [erin.userId]);
    const newcomer = await signUpAndIn(sut.http, erin.email);
    await request(sut.http).post(`/api/${newcomer.userId}/tasks`).set(newcomer.auth).send({ title: 'Mine' }).expect(201);

    // A process that starts now reads the same version the same way.
    await sut.restart();
    const signedIn = await request(sut.http).post('/auth/login').send({ email: erin.email, password: 'correct horse battery' }).expect(200);
    const auth = { Authorization: `Bearer ${(signedIn.body as { accessToken: string }).accessToken}` };
    await request(sut.http).post(`/api/${newcomer.userId}/tasks`).set(auth).send({ title: 'Still mine' }).expect(201);

    // The file shows the email the admin wrote.
    const file = await asText(request(sut.http).get('/admin/policy?format=yaml').set(admin.auth)).expect(200);
    expect(file.body as string).toContain(`- ${erin.email}`);
  });
});
