import request from 'supertest';
import { DataSource } from 'typeorm';
import { ShiftedClock } from '../fakes/fixed-clock';
import { addTasks, taskTitles } from '../factories/tasks';
import type { SignedInUser } from '../support/accounts';
import { useTestApp } from '../support/test-app';
import { WORDS_OF_A_NO } from '../support/words-of-a-no';

/** One 2026-07-28 `tools/call` over plain HTTP, as any client (or attacker) could send it. */
async function call2026(
  http: string,
  token: string,
  args: Record<string, unknown>,
  retry?: { requestState: string; inputResponses: Record<string, unknown> },
): Promise<{
  status: number;
  body: { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };
}> {
  const id = Math.floor(Math.random() * 1e9);
  const response = await fetch(`${http}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'delete_task',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name: 'delete_task',
        arguments: args,
        ...retry,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
          'io.modelcontextprotocol/clientInfo': { name: 'hostile', version: '1' },
        },
      },
    }),
  });
  const text = await response.text();
  // One JSON body, or an event stream whose last data line is the response.
  const json = response.headers.get('content-type')?.startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5))
        .at(-1)!
    : text;
  const body = JSON.parse(json) as Awaited<ReturnType<typeof call2026>>['body'];
  expect(body.id).toBe(id);
  return { status: response.status, body };
}

const YES = { confirm: { action: 'accept', content: { confirm: true } } };

describe('2026 confirmations: a requestState is good for its own call, person, credential and time, once', () => {
  const clock = new ShiftedClock();
  const sut = useTestApp({ clock });
  const admin = sut.user({ admin: true });
  const ada = sut.user();
  const bob = sut.user();

  const refusals = () =>
    sut.app
      .get(DataSource)
      .query<{ actor_id: string; status: string; arguments: unknown }[]>(
        `SELECT actor_id, status, arguments FROM audit_log WHERE error_code = 'MCP.REQUEST_STATE_REFUSED' ORDER BY seq`,
      );
  const deletions = () =>
    sut.app
      .get(DataSource)
      .query<{ n: number }[]>(`SELECT count(*)::int AS n FROM audit_log WHERE tool = 'delete_task' AND status = 'succeeded'`)
      .then(([row]) => row.n);

  const ask = async (who: SignedInUser, number: number, token = who.token) => {
    const { body } = await call2026(sut.http, token, { number });
    expect(body.result).toMatchObject({ resultType: 'input_required', inputRequests: { confirm: { method: 'elicitation/create' } } });
    return body.result!.requestState as string;
  };
  const refusedWith = async (reason: string, promise: ReturnType<typeof call2026>) => {
    const { body } = await promise;
    expect(body.error).toMatchObject({ code: -32602, data: { refused: reason } });
    // An expired question is said as an expiry (below), not as a state that cannot be used.
    if (reason !== 'expired') expect(body.error!.message).toMatch(/^This confirmation cannot be used: .+ Nothing ran/);
    return body.error!.message;
  };

  it('refuses a changed, a foreign, a mismatched, an expired and a replayed state; nothing runs, and each refusal is audited', async () => {
    const [first, second] = await addTasks(sut.http, ada, 'Dentist', 'Call mum');
    const state = await ask(ada, first.number);

    // Changed by one character, anywhere: its MAC no longer holds.
    const tampered = state.slice(0, 10) + (state[10] === 'A' ? 'B' : 'A') + state.slice(11);
    await refusedWith('tampered', call2026(sut.http, ada.token, { number: first.number }, { requestState: tampered, inputResponses: YES }));
    // Another person presenting it, for a task number of their own.
    await addTasks(sut.http, bob, 'Bob’s task');
    await refusedWith(
      'another-person',
      call2026(sut.http, bob.token, { number: first.number }, { requestState: state, inputResponses: YES }),
    );
    // The same person, another call: other arguments.
    await refusedWith(
      'another-call',
      call2026(sut.http, ada.token, { number: second.number }, { requestState: state, inputResponses: YES }),
    );
    // The same person, another credential of theirs.
    const created = await request(sut.http)
      .post(`/api/${ada.userId}/tokens`)
      .set(ada.auth)
      .send({ name: 'second', scopes: ['tasks:write'] })
      .expect(201);
    const otherToken = (created.body as { token: string }).token;
    await refusedWith(
      'another-credential',
      call2026(sut.http, otherToken, { number: first.number }, { requestState: state, inputResponses: YES }),
    );
    expect(await taskTitles(sut.http, ada)).toEqual(['Dentist', 'Call mum']);
    expect(await deletions()).toBe(0);

    // The real answer, once: deleted. The same answer again: refused, nothing more deleted.
    const yes = await call2026(sut.http, ada.token, { number: first.number }, { requestState: state, inputResponses: YES });
    expect(yes.body.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { deleted: [expect.objectContaining({ title: 'Dentist' })] },
    });
    expect(yes.body.result).not.toHaveProperty('isError', true);
    expect(await taskTitles(sut.http, ada)).toEqual(['Call mum']);
    await refusedWith(
      'already-answered',
      call2026(sut.http, ada.token, { number: first.number }, { requestState: state, inputResponses: YES }),
    );

    // Asked, then answered after its five minutes: the question expired unanswered, which nobody refused.
    const late = await ask(ada, second.number);
    clock.advance(5 * 60 * 1000 + 1000);
    const expired = 'The question expired unanswered after 5 minutes, so nothing was deleted.';
    expect(
      await refusedWith('expired', call2026(sut.http, ada.token, { number: second.number }, { requestState: late, inputResponses: YES })),
    ).toBe(`${expired} Call the tool again to be asked anew.`);
    const [expiredRow] = await sut.app
      .get(DataSource)
      .query<{ error_message: string }[]>(
        `SELECT error_message FROM audit_log WHERE error_code = 'MCP.REQUEST_STATE_REFUSED' ORDER BY seq DESC LIMIT 1`,
      );
    expect(expiredRow.error_message).toBe(expired);
    expect(expiredRow.error_message).not.toMatch(WORDS_OF_A_NO);
    expect(await taskTitles(sut.http, ada)).toEqual(['Call mum']);
    expect(await deletions()).toBe(1);

    expect(await refusals()).toEqual([
      { actor_id: ada.userId, status: 'rejected', arguments: { number: first.number } },
      { actor_id: bob.userId, status: 'rejected', arguments: { number: first.number } },
      { actor_id: ada.userId, status: 'rejected', arguments: { number: second.number } },
      { actor_id: ada.userId, status: 'rejected', arguments: { number: first.number } },
      { actor_id: ada.userId, status: 'rejected', arguments: { number: first.number } },
      { actor_id: ada.userId, status: 'rejected', arguments: { number: second.number } },
    ]);
  });

  it('a retry without an answer is asked again; a declined one deletes nothing and cannot be answered again', async () => {
    const [task] = await addTasks(sut.http, ada, 'Undecided');
    const state = await ask(ada, task.number);
    const again = await call2026(sut.http, ada.token, { number: task.number }, { requestState: state, inputResponses: {} });
    expect(again.body.result).toMatchObject({ resultType: 'input_required' });
    const no = await call2026(
      sut.http,
      ada.token,
      { number: task.number },
      { requestState: state, inputResponses: { confirm: { action: 'decline' } } },
    );
    expect(no.body.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { deleted: [], confirmed: false, ending: 'decided-no', message: 'The person said no, so nothing was deleted.' },
    });
    await refusedWith(
      'already-answered',
      call2026(sut.http, ada.token, { number: task.number }, { requestState: state, inputResponses: YES }),
    );
    expect(await taskTitles(sut.http, ada)).toContain('Undecided');
  });

  it('a question asked under one policy version is not answered under another that asks too', async () => {
    const [task] = await addTasks(sut.http, ada, 'Asked under the old policy');
    const state = await ask(ada, task.number);
    const rules = [{ name: 'deleting-asks', tools: ['delete_task'], sources: ['chat', 'mcp'], effect: 'ask-person' }];
    await request(sut.http).put('/admin/policy').set(admin.auth).send({ rules, reason: 'A new version that still asks' }).expect(200);
    await refusedWith(
      'policy-changed',
      call2026(sut.http, ada.token, { number: task.number }, { requestState: state, inputResponses: YES }),
    );
    expect(await taskTitles(sut.http, ada)).toContain('Asked under the old policy');
    // Asked again, under the version in force: yes deletes it.
    const fresh = await ask(ada, task.number);
    await call2026(sut.http, ada.token, { number: task.number }, { requestState: fresh, inputResponses: YES });
    expect(await taskTitles(sut.http, ada)).not.toContain('Asked under the old policy');
  });
});
