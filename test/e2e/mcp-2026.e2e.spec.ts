import type { Client } from '@modelcontextprotocol/client';
import { DataSource } from 'typeorm';
import { addTasks, taskTitles } from '../factories/tasks';
import { connect2026, type ElicitAnswer } from '../support/mcp-2026-client';
import { useTestApp } from '../support/test-app';

describe('POST /mcp from a 2026-07-28 client (the official v2 SDK client, pinned)', () => {
  const clients: Client[] = [];
  const sut = useTestApp({ beforeClose: () => Promise.all(clients.map((client) => client.close())) });
  const user = sut.user();
  const open = async (answer?: (message: string) => ElicitAnswer) => {
    const client = await connect2026(`${sut.http}/mcp`, user.token, { answer });
    clients.push(client);
    return client;
  };
  const deleteAudit = () =>
    sut.app
      .get(DataSource)
      .query<{ status: string; error_code: string | null; arguments: unknown }[]>(
        `SELECT status, error_code, arguments FROM audit_log WHERE tool = 'delete_task' AND actor_id = $1 ORDER BY seq`,
        [user.userId],
      );

  it('lists the tools, adds and lists tasks, with no session', async () => {
    const client = await open();
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['add_task', 'list_tasks', 'complete_task', 'update_task', 'delete_task']);
    const added = await client.callTool({ name: 'add_task', arguments: { title: 'Water the plants' } });
    expect(added.isError).toBeFalsy();
    const listed = await client.callTool({ name: 'list_tasks', arguments: {} });
    expect(JSON.stringify(listed.structuredContent)).toContain('Water the plants');
  });

  it('asks before deleting, as an input_required result: yes deletes once, no deletes nothing', async () => {
    const [dentist, mum] = await addTasks(sut.http, user, 'Dentist', 'Call mum');
    const asked: string[] = [];
    const yes = await open((message) => {
      asked.push(message);
      return { action: 'accept', content: { confirm: true } };
    });
    const deleted = await yes.callTool({ name: 'delete_task', arguments: { number: dentist.number } });
    expect(deleted.isError).toBeFalsy();
    expect(asked).toEqual([expect.stringContaining("'Dentist'")]);
    expect(await taskTitles(sut.http, user)).not.toContain('Dentist');

    const no = await open(() => ({ action: 'decline' }));
    const kept = await no.callTool({ name: 'delete_task', arguments: { number: mum.number } });
    expect(kept.structuredContent).toMatchObject({ deleted: [], confirmed: false });
    expect(await taskTitles(sut.http, user)).toContain('Call mum');
    expect((await deleteAudit()).map((row) => row.status)).toEqual([
      'confirmation_required',
      'pending',
      'succeeded',
      'confirmation_required',
    ]);
  });

  it('a client that cannot show a form is sent to the console, as a 2025 one is', async () => {
    const [task] = await addTasks(sut.http, user, 'Ask me in the console');
    const client = await open();
    const refused = await client.callTool({ name: 'delete_task', arguments: { number: task.number } });
    expect(refused).toMatchObject({ isError: true, structuredContent: { code: 'CONFIRMATION_REQUIRED' } });
    expect((refused.structuredContent as { message: string }).message).toContain(`${sut.http}/#chat?conversation=`);
    expect(await taskTitles(sut.http, user)).toContain('Ask me in the console');
  });

  it('a client that negotiates picks 2026-07-28 from server/discover', async () => {
    const client = await connect2026(`${sut.http}/mcp`, user.token, { negotiate: true });
    clients.push(client);
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect((await client.listTools()).tools).toHaveLength(5);
  });

  it('an unknown tool is a JSON-RPC error -32602', async () => {
    const client = await open();
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it('a changed requestState is refused with -32602 and deletes nothing (the suite can only check this on its own fixture tool)', async () => {
    const [kept] = await addTasks(sut.http, user, 'Renew passport');
    const tampering: typeof fetch = (input, init) => {
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { params?: { requestState?: string } }) : undefined;
      const state = body?.params?.requestState;
      if (body?.params && typeof state === 'string') {
        body.params.requestState = `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`;
        return fetch(input, { ...init, body: JSON.stringify(body) });
      }
      return fetch(input, init);
    };
    const client = await connect2026(`${sut.http}/mcp`, user.token, {
      answer: () => ({ action: 'accept', content: { confirm: true } }),
      fetch: tampering,
    });
    clients.push(client);
    await expect(client.callTool({ name: 'delete_task', arguments: { number: kept.number } })).rejects.toMatchObject({
      code: -32602,
      data: { reason: 'invalid_request_state', refused: 'tampered' },
    });
    expect(await taskTitles(sut.http, user)).toContain('Renew passport');
  });

  it('a resource that is not there is a JSON-RPC error -32602 naming its URI (2025 sessions answer -32002)', async () => {
    const client = await open();
    for (const uri of ['bridle://tasks/999', 'file:///etc/passwd']) {
      await expect(client.readResource({ uri })).rejects.toMatchObject({ code: -32602, data: { uri } });
    }
  });
});
