import request from 'supertest';
import { addTasks, taskTitles } from '../factories/tasks';
import { useTestApp } from '../support/test-app';

interface AuditRow {
  source: string;
  tool: string;
  status: string;
  arguments: Record<string, unknown>;
  errorCode: string | null;
  errorMessage: string | null;
  policy: { version: number; rule: string | null; effect: string } | null;
}

interface ChatTurn {
  conversationId: string;
  toolCalls: { tool: string; success: boolean; error?: { code: string; message: string } }[];
  pendingConfirmation: { tool: string } | null;
}

/**
 * The REST API's task routes are the policy's fourth source, `api` (docs/policies.md): the
 * person's own requests, decided by the same rules as the tools of the same name, before
 * anything is read or written. Refusals are HTTP errors a client can act on.
 */
describe('a stored policy, enforced on the REST task routes (source api)', () => {
  const sut = useTestApp();
  const admin = sut.user({ admin: true });
  const ada = sut.user();
  const bob = sut.user();
  const carol = sut.user();
  const dave = sut.user();

  /** The person's REST requests in the audit log: only the refused ones are there. */
  async function apiRows(user: { userId: string }): Promise<AuditRow[]> {
    const res = await request(sut.http).get(`/admin/audit-logs?source=api&actorId=${user.userId}&limit=100`).set(admin.auth).expect(200);
    return (res.body as { items: AuditRow[] }).items;
  }

  beforeAll(async () => {
    const rules = [
      {
        name: 'no-api-deletes-for-ada',
        tools: ['delete_task'],
        sources: ['api'],
        people: [ada.email],
        effect: 'deny',
        reason: 'Deletes go through the assistant, which asks first.',
      },
      {
        name: 'dave-reads-only',
        tools: ['*'],
        sources: ['api'],
        people: [dave.email],
        effect: 'deny',
        reason: 'Your access is read-only.',
      },
      {
        name: 'carol-add-cap',
        tools: ['add_task'],
        people: [carol.email],
        effect: 'limit',
        limit: { max: 2, per: 'person', window: 'day' },
      },
      // Every source: the chat and MCP ask; over the API the request is the person's own yes.
      { name: 'deletes-ask', tools: ['delete_task'], effect: 'ask-person' },
    ];
    await request(sut.http).put('/admin/policy').set(admin.auth).send({ rules, reason: 'API rules' }).expect(200);
  });

  it("refuses a denied route with 403 POLICY.DENIED and the admin's reason, changing nothing; others' requests and the chat are untouched", async () => {
    await addTasks(sut.http, ada, 'Keep me');
    await addTasks(sut.http, bob, 'Delete me');

    const refused = await request(sut.http).delete(`/api/${ada.userId}/tasks/1`).set(ada.auth).expect(403);
    expect(refused.body).toEqual(
      expect.objectContaining({
        code: 'POLICY.DENIED',
        message: "This is not allowed here: Deletes go through the assistant, which asks first. (Policy rule 'no-api-deletes-for-ada'.)",
      }),
    );
    expect(await taskTitles(sut.http, ada)).toEqual(['Keep me']);
    // Audited as a refused tool call is: the rule and version that refused it.
    const [row] = await apiRows(ada);
    expect(row).toEqual(
      expect.objectContaining({
        source: 'api',
        tool: 'delete_task',
        status: 'rejected',
        arguments: { number: 1 },
        errorCode: 'POLICY_DENIED',
        errorMessage: (refused.body as { message: string }).message,
        policy: { version: expect.any(Number), rule: 'no-api-deletes-for-ada', effect: 'deny', items: 1 },
      }),
    );

    // Bob is not named: 'deletes-ask' matches his request, which is his own yes.
    await request(sut.http).delete(`/api/${bob.userId}/tasks/1`).set(bob.auth).expect(204);
    expect(await taskTitles(sut.http, bob)).toEqual([]);
    // A request let through is the person's own change: not recorded.
    expect(await apiRows(bob)).toEqual([]);

    // Ada's rule is the API's: in the chat her delete is asked about, as 'deletes-ask' says.
    const asked = (await request(sut.http).post(`/api/${ada.userId}/chat`).set(ada.auth).send({ message: 'delete task 1' }).expect(200))
      .body as ChatTurn;
    expect(asked.pendingConfirmation).toEqual(expect.objectContaining({ tool: 'delete_task' }));
  });

  it('decides every route that changes tasks, and none that reads them', async () => {
    // Dave's tasks come in through the chat: the rule is the API's.
    const added = (
      await request(sut.http).post(`/api/${dave.userId}/chat`).set(dave.auth).send({ message: 'add water the plants' }).expect(200)
    ).body as ChatTurn;
    expect(added.toolCalls).toEqual([expect.objectContaining({ tool: 'add_task', success: true })]);

    const tasks = `/api/${dave.userId}/tasks`;
    const changes = [
      request(sut.http).post(tasks).set(dave.auth).send({ title: 'Another' }),
      request(sut.http).patch(`${tasks}/1`).set(dave.auth).send({ title: 'Renamed' }),
      request(sut.http).post(`${tasks}/1/complete`).set(dave.auth),
      request(sut.http).delete(`${tasks}/1`).set(dave.auth),
    ];
    for (const change of changes) {
      const res = await change;
      expect({ status: res.status, code: (res.body as { code: string }).code }).toEqual({ status: 403, code: 'POLICY.DENIED' });
    }
    await request(sut.http).get(tasks).set(dave.auth).expect(200);
    await request(sut.http).get(`${tasks}/1`).set(dave.auth).expect(200);
    expect(await taskTitles(sut.http, dave)).toEqual(['Water the plants']);
    expect((await apiRows(dave)).map((row) => [row.tool, row.status, row.policy?.rule])).toEqual(
      ['delete_task', 'complete_task', 'update_task', 'add_task'].map((tool) => [tool, 'rejected', 'dave-reads-only']),
    );
  });

  it('counts the API and the chat against one limit: the third add is refused with 429 POLICY.LIMIT_REACHED and Retry-After', async () => {
    await request(sut.http).post(`/api/${carol.userId}/tasks`).set(carol.auth).send({ title: 'First' }).expect(201);
    const second = (await request(sut.http).post(`/api/${carol.userId}/chat`).set(carol.auth).send({ message: 'add buy milk' }).expect(200))
      .body as ChatTurn;
    expect(second.toolCalls).toEqual([expect.objectContaining({ tool: 'add_task', success: true })]);

    const third = await request(sut.http).post(`/api/${carol.userId}/tasks`).set(carol.auth).send({ title: 'Third' }).expect(429);
    expect(third.body).toEqual(expect.objectContaining({ code: 'POLICY.LIMIT_REACHED' }));
    expect(await apiRows(carol)).toEqual([
      expect.objectContaining({
        tool: 'add_task',
        status: 'rejected',
        arguments: { title: 'Third' },
        errorCode: 'POLICY_LIMIT_REACHED',
        policy: { version: expect.any(Number), rule: 'carol-add-cap', effect: 'limit', items: 1 },
      }),
    ]);
    expect((third.body as { message: string }).message).toMatch(
      /^That has reached its limit: at most 2 a day \(policy rule 'carol-add-cap'\)\. Nothing was done\. More can run in \d+ hours\.$/,
    );
    const retryAfter = Number(third.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(23 * 3600);
    expect(retryAfter).toBeLessThanOrEqual(24 * 3600);

    const inChat = (await request(sut.http).post(`/api/${carol.userId}/chat`).set(carol.auth).send({ message: 'add call mum' }).expect(200))
      .body as ChatTurn;
    expect(inChat.toolCalls).toEqual([
      expect.objectContaining({ tool: 'add_task', success: false, error: expect.objectContaining({ code: 'POLICY_LIMIT_REACHED' }) }),
    ]);
    expect(await taskTitles(sut.http, carol)).toEqual(['First', 'Buy milk']);
  });
});
