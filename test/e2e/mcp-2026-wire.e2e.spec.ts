import { addTasks, taskTitles } from '../factories/tasks';
import { useTestApp } from '../support/test-app';

const MODERN = '2026-07-28';

interface WireAnswer {
  readonly status: number;
  readonly body: {
    jsonrpc?: string;
    id?: unknown;
    result?: Record<string, unknown> & { resultType?: string; ttlMs?: number; cacheScope?: string };
    error?: { code: number; message: string; data?: unknown };
  };
}

/**
 * The 2026-07-28 wire as a client that is not an SDK sees it (an attacker, a script): plain
 * fetch, headers and bodies written by hand. What the specification asks of a server here is
 * what these tests check: the standard headers against the body, the request's id on every
 * error, `resultType`, the cache hints, and `server/discover`.
 */
describe('POST /mcp, the 2026-07-28 wire by hand', () => {
  const sut = useTestApp();
  const user = sut.user();
  let nextId = 100;

  /** A 2026 request: the version and client in `_meta`, and the standard headers as the body says, unless `headers` overrides them. */
  async function send(
    method: string,
    params: Record<string, unknown> = {},
    options: { headers?: Record<string, string | undefined>; id?: number | string; version?: string; capabilities?: unknown } = {},
  ): Promise<WireAnswer & { id: number | string }> {
    const id = options.id ?? nextId++;
    const version = options.version ?? MODERN;
    const name = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
    const headers: Record<string, string | undefined> = {
      Authorization: `Bearer ${user.token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': version,
      'Mcp-Method': method,
      ...(name === undefined ? {} : { 'Mcp-Name': name }),
      ...options.headers,
    };
    const body = {
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': version,
          'io.modelcontextprotocol/clientInfo': { name: 'by-hand', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? {},
        },
      },
    };
    const response = await fetch(`${sut.http}/mcp`, {
      method: 'POST',
      headers: Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined)),
      body: JSON.stringify(body),
    });
    return { id, status: response.status, body: (await response.json()) as WireAnswer['body'] };
  }

  describe('the standard headers are checked against the body', () => {
    it.each([
      ['Mcp-Method names another method', 'tools/call', { name: 'list_tasks', arguments: {} }, { 'Mcp-Method': 'tools/list' }],
      ['Mcp-Name names another tool', 'tools/call', { name: 'list_tasks', arguments: {} }, { 'Mcp-Name': 'add_task' }],
      ['Mcp-Name names another resource', 'resources/read', { uri: 'bridle://tasks' }, { 'Mcp-Name': 'bridle://tasks/1' }],
      ['Mcp-Method is missing', 'tools/list', {}, { 'Mcp-Method': undefined }],
      ['Mcp-Name is missing on a tools/call', 'tools/call', { name: 'list_tasks', arguments: {} }, { 'Mcp-Name': undefined }],
    ])('%s: 400, HeaderMismatch (-32020) with the request id, and nothing runs', async (_case, method, params, headers) => {
      const answer = await send(method, params, { headers });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: answer.id, error: { code: -32020 } });
      expect(answer.body.result).toBeUndefined();
    });

    it('a tools/call whose Mcp-Name disagrees runs nothing: no task is added', async () => {
      const refused = await send(
        'tools/call',
        { name: 'add_task', arguments: { title: 'Smuggled' } },
        { headers: { 'Mcp-Name': 'list_tasks' } },
      );
      expect(refused.body.error?.code).toBe(-32020);
      const listed = await send('tools/call', { name: 'list_tasks', arguments: {} });
      expect(JSON.stringify(listed.body.result?.structuredContent)).not.toContain('Smuggled');
    });
  });

  describe('every JSON-RPC error carries the request id', () => {
    it.each([
      ['an unknown method', 'tasks/explode', {}, -32601],
      ['an unknown tool', 'tools/call', { name: 'drop_tables', arguments: {} }, -32602],
      ['a tools/call without a name', 'tools/call', { arguments: {} }, -32602],
      ['a resource that is not there', 'resources/read', { uri: 'bridle://tasks/999' }, -32602],
      [
        'a requestState this server never issued',
        'tools/call',
        { name: 'delete_task', arguments: { number: 1 }, requestState: 'forged' },
        -32602,
      ],
    ])('%s: %s', async (_case, method, params, code) => {
      const answer = await send(method, params, { id: `req-${_case.length}` });
      expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: `req-${_case.length}`, error: { code } });
      // The transport binding: a method the server does not serve is 404.
      if (code === -32601) expect(answer.status).toBe(404);
    });
  });

  it('an ordinary result says resultType "complete"', async () => {
    const answer = await send('tools/call', { name: 'list_tasks', arguments: {} });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: answer.id, result: { resultType: 'complete', structuredContent: { status: 'all' } } });
    expect(answer.body.result).not.toHaveProperty('isError');
  });

  it.each([
    ['tools/list', {}],
    ['prompts/list', {}],
    ['resources/list', {}],
    ['resources/templates/list', {}],
    ['resources/read', { uri: 'bridle://tasks' }],
  ])('%s is private to the person, with how long it may be kept', async (method, params) => {
    const answer = await send(method, params);
    expect(answer.body.result).toMatchObject({ resultType: 'complete', cacheScope: 'private', ttlMs: expect.any(Number) });
  });

  it.each([
    ['a string', 'yes'],
    ['an array', ['form']],
    ['null', null],
    ['a number', 7],
  ])(
    'client capabilities whose elicitation is %s: a delete is never a server error, and nothing is deleted',
    async (_case, elicitation) => {
      const [task] = await addTasks(sut.http, user, 'Odd capabilities');
      const answer = await send(
        'tools/call',
        { name: 'delete_task', arguments: { number: task.number } },
        { capabilities: { elicitation } },
      );
      expect(answer.status).toBeLessThan(500);
      expect(answer.body.id).toBe(answer.id);
      expect(JSON.stringify(answer.body)).not.toContain('INTERNAL');
      expect(await taskTitles(sut.http, user)).toContain('Odd capabilities');
    },
  );

  it('two tools/list answers are the same bytes', async () => {
    const [first, second] = [await send('tools/list', {}, { id: 1 }), await send('tools/list', {}, { id: 1 })];
    expect(JSON.stringify(second.body)).toBe(JSON.stringify(first.body));
  });

  it('server/discover answers with both eras’ revisions, the capabilities and who serves', async () => {
    const answer = await send('server/discover');
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe(answer.id);
    expect(answer.body.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: [MODERN, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'],
      capabilities: { tools: expect.any(Object), resources: expect.any(Object), prompts: expect.any(Object) },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'bridle-tools' } },
    });
  });

  it('a revision it does not speak: 400, UnsupportedProtocolVersion naming what it speaks, with the request id', async () => {
    const answer = await send('tools/list', {}, { version: '2099-01-01' });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ id: answer.id, error: { code: -32022, data: { supported: [MODERN], requested: '2099-01-01' } } });
  });
});
