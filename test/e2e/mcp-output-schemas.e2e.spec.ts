import { type Client as Client2026 } from '@modelcontextprotocol/client';
import { Client as Client2025 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020';
import { addTasks } from '../factories/tasks';
import type { SignedInUser } from '../support/accounts';
import { connect2026 } from '../support/mcp-2026-client';
import { useTestApp } from '../support/test-app';

/** What a test needs of either official client. */
interface AnyClient {
  listTools(): Promise<{ tools: { name: string; outputSchema?: Record<string, unknown> }[] }>;
  callTool(call: { name: string; arguments: Record<string, unknown> }): Promise<{ structuredContent?: unknown; isError?: boolean }>;
  close(): Promise<void>;
}

type Answer = 'yes' | 'no' | 'cannot-ask';

/**
 * Every result a tool answers over /mcp, its successes and its errors, in both eras, is what
 * the tool's listed `outputSchema` says. Each client lists the tools first, so that it checks
 * every result itself (the v1 client errors included) and would throw on one that does not
 * match; the test checks each again with Ajv against the schema as listed.
 */
describe('POST /mcp: every tool result matches the outputSchema it is listed with', () => {
  const clients: AnyClient[] = [];
  const sut = useTestApp({ beforeClose: () => Promise.all(clients.map((client) => client.close().catch(() => undefined))) });

  const eras: [string, SignedInUser, (user: SignedInUser, answer: Answer) => Promise<AnyClient>][] = [
    ['2026-07-28, the v2 SDK client', sut.user(), open2026],
    ['2025-11-25, the v1 SDK client in a session', sut.user(), open2025],
  ];

  async function open2026(user: SignedInUser, answer: Answer): Promise<AnyClient> {
    const client: Client2026 = await connect2026(`${sut.http}/mcp`, user.token, {
      answer:
        answer === 'cannot-ask'
          ? undefined
          : () => (answer === 'yes' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' }),
    });
    clients.push(client);
    return client;
  }

  async function open2025(user: SignedInUser, answer: Answer): Promise<AnyClient> {
    const client = new Client2025(
      { name: 'e2e-2025', version: '1.0.0' },
      { capabilities: answer === 'cannot-ask' ? {} : { elicitation: {} } },
    );
    if (answer !== 'cannot-ask') {
      client.setRequestHandler(ElicitRequestSchema, () =>
        answer === 'yes' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' },
      );
    }
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', sut.http), { requestInit: { headers: user.auth } }));
    // The v1 client's callTool may also answer a task's result: this suite never asks for one.
    const either = client as unknown as AnyClient;
    clients.push(either);
    return either;
  }

  describe.each(eras)('%s', (_era, user, open) => {
    it('lists an outputSchema with an object root for every tool, the same bytes every time', async () => {
      const client = await open(user, 'cannot-ask');
      const first = await client.listTools();
      expect(first.tools.map((tool) => [tool.name, tool.outputSchema?.type])).toEqual([
        ['add_task', 'object'],
        ['list_tasks', 'object'],
        ['complete_task', 'object'],
        ['update_task', 'object'],
        ['delete_task', 'object'],
      ]);
      expect(JSON.stringify(await client.listTools())).toBe(JSON.stringify(first));
    });

    it('successes, a declined and a confirmed deletion, the console fallback and errors all validate', async () => {
      await addTasks(sut.http, user, 'Dentist', 'Call mum', 'Buy milk');
      const [yes, no, cannotAsk] = [await open(user, 'yes'), await open(user, 'no'), await open(user, 'cannot-ask')];
      const { tools } = await yes.listTools();
      await no.listTools();
      await cannotAsk.listTools();
      const ajv = new Ajv2020({ strict: true, allErrors: true });
      const validators = new Map(tools.map((tool) => [tool.name, ajv.compile(tool.outputSchema ?? {})]));

      const calls: [string, AnyClient, string, Record<string, unknown>, Record<string, unknown>][] = [
        ['add', yes, 'add_task', { title: 'Water the plants', priority: 'high' }, { task: { title: 'Water the plants' } }],
        ['list', yes, 'list_tasks', { status: 'pending' }, { status: 'pending', count: 4 }],
        ['complete', yes, 'complete_task', { query: 'milk' }, { task: { title: 'Buy milk', completed: true }, alreadyCompleted: false }],
        ['complete again', yes, 'complete_task', { number: 3 }, { alreadyCompleted: true }],
        ['update', yes, 'update_task', { number: 4, description: 'The ferns' }, { changed: ['description'] }],
        ['delete, declined', no, 'delete_task', { number: 1 }, { deleted: [], confirmed: false }],
        ['delete, confirmed', yes, 'delete_task', { number: 1 }, { deleted: [{ number: 1, title: 'Dentist' }] }],
        ['delete, console fallback', cannotAsk, 'delete_task', { number: 2 }, { code: 'CONFIRMATION_REQUIRED' }],
        ['a task that is not there', yes, 'complete_task', { number: 99 }, { code: 'TASK_NOT_FOUND', details: { number: 99 } }],
        ['bad arguments', yes, 'add_task', { title: '' }, { code: 'INVALID_ARGUMENTS' }],
        ['a deletion that names nothing', cannotAsk, 'delete_task', { query: 'nothing like it' }, { code: 'TASK_NOT_FOUND' }],
      ];
      for (const [label, client, name, args, expected] of calls) {
        const result = await client.callTool({ name, arguments: args });
        expect({ label, content: result.structuredContent }).toMatchObject({ label, content: expected });
        expect([label, result.isError === true]).toEqual([label, 'code' in expected]);
        const validate = validators.get(name)!;
        expect([label, validate(result.structuredContent) ? 'valid' : validate.errors]).toEqual([label, 'valid']);
      }
    });
  });
});
