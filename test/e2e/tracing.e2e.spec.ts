import { createServer, type Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AddressInfo } from 'node:net';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { callService, ROOT, type RunningService, signUpOnService, startService, useBuiltService } from '../support/built-service';
import { embeddedDataDir } from '../support/test-database';

/**
 * Traces of the built service (`node dist/main.js`), exported over OTLP/HTTP as
 * JSON to a receiver inside the test.
 */
const OUT_DIR = join(ROOT, 'dist-test-tracing');
const MAIN = join(OUT_DIR, 'main.js');
const PROBE = join(ROOT, 'test', 'support', 'loaded-packages-probe.cjs');

/** A span as OTLP/JSON carries it, its attributes made a plain object. */
interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  /** 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Record<string, unknown>;
  readonly status?: { code?: number };
  readonly service: unknown;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
type OtlpAttribute = { key: string; value: OtlpValue };

function valueOf(value: OtlpValue): unknown {
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.doubleValue ?? value.boolValue;
}

const attributesOf = (attributes: OtlpAttribute[] = []) => Object.fromEntries(attributes.map(({ key, value }) => [key, valueOf(value)]));

/** An OTLP/HTTP trace receiver on 127.0.0.1: POST /v1/traces with a JSON body. `raw` keeps every body as received. */
async function startReceiver(): Promise<{ server: Server; url: string; spans: ReceivedSpan[]; raw: string[] }> {
  const spans: ReceivedSpan[] = [];
  const raw: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      raw.push(body);
      const { resourceSpans = [] } = JSON.parse(body) as {
        resourceSpans?: {
          resource?: { attributes?: OtlpAttribute[] };
          scopeSpans?: { spans?: (ReceivedSpan & { attributes?: OtlpAttribute[] })[] }[];
        }[];
      };
      for (const { resource, scopeSpans = [] } of resourceSpans) {
        const service = attributesOf(resource?.attributes)['service.name'];
        for (const { spans: received = [] } of scopeSpans)
          for (const span of received) spans.push({ ...span, attributes: attributesOf(span.attributes), service });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, raw };
}

async function stop(service: RunningService): Promise<number | null> {
  service.child.kill('SIGTERM');
  return service.exited;
}

/** Attributes that may be longer than a client's value is recorded: the URL (cut at 4 096, logging/log-serializers.ts) and the SQL. */
const OWN_LONG_ATTRIBUTES = new Set(['url.path', 'url.query', 'url.full', 'db.query.text', 'db.statement']);

describe('traces of the built service', () => {
  useBuiltService(OUT_DIR);
  let dataDir: string;

  beforeEach(async () => {
    // The run's migrated template, as the other specs' databases: a fresh folder's initdb took over a minute on a loaded machine.
    dataDir = await embeddedDataDir();
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('exports one trace per chat turn: the HTTP request, invoke_agent, chat and execute_tool, with no secret and no message', async () => {
    const receiver = await startReceiver();
    const loadedFile = join(dataDir, 'loaded-packages.txt');
    const service = await startService(MAIN, {
      BRIDLE_DATA_DIR: dataDir,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      NODE_OPTIONS: `--require ${PROBE}`,
      LOADED_PACKAGES_FILE: loadedFile,
    });
    const credentials = { email: 'traced@example.com', password: 'a password long enough' };
    const message = 'add buy milk';
    let decisionId: string;
    let token: string;
    try {
      const user = await signUpOnService(service, credentials);
      token = user.accessToken;
      const turn = await callService<{ response: string; decision: { id: string } }>(
        service,
        'POST',
        `/api/${user.userId}/chat`,
        { message },
        token,
      );
      expect(turn.status).toBe(200);
      expect(turn.body.response).toBe("Got it! Added 'Buy milk' to your list. Anything else?");
      decisionId = turn.body.decision.id;

      const agentSpan = () =>
        receiver.spans.find((span) => span.attributes['bridle.decision.id'] === decisionId && span.name.startsWith('invoke_agent'));
      const serverSpanOf = (traceId: string) => receiver.spans.find((span) => span.traceId === traceId && span.kind === 2);
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
        const agent = agentSpan();
        if (agent && serverSpanOf(agent.traceId)) break;
      }
      const agent = agentSpan();
      expect(agent).toBeDefined();
      const trace = receiver.spans.filter((span) => span.traceId === agent!.traceId);
      const byId = new Map(trace.map((span) => [span.spanId, span]));
      const ancestors = (span: ReceivedSpan): ReceivedSpan[] => {
        const parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
        return parent ? [parent, ...ancestors(parent)] : [];
      };

      // The HTTP request is the trace's root, named by its route, and the turn runs inside it.
      const server = trace.find((span) => span.kind === 2)!;
      expect(server).toMatchObject({
        name: 'POST /api/:userId/chat',
        service: 'bridle',
        attributes: expect.objectContaining({
          'http.request.method': 'POST',
          'http.route': '/api/:userId/chat',
          'http.response.status_code': 200,
        }),
      });
      expect(server.parentSpanId ?? '').toBe('');
      expect(ancestors(agent!)).toContain(server);
      expect(agent).toMatchObject({
        name: 'invoke_agent todo_assistant',
        kind: 1,
        attributes: expect.objectContaining({
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': 'todo_assistant',
          'gen_ai.provider.name': 'bridle.offline',
          'gen_ai.request.model': expect.any(String),
          'gen_ai.conversation.id': expect.any(String),
        }),
      });

      // Each model call and each tool call of the turn is a child of the turn's span.
      const chats = trace.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
      expect(chats.length).toBeGreaterThanOrEqual(1);
      for (const chat of chats) {
        expect(chat.parentSpanId).toBe(agent!.spanId);
        expect(chat).toMatchObject({
          name: `chat ${String(chat.attributes['gen_ai.request.model'])}`,
          kind: 3,
          attributes: expect.objectContaining({
            'gen_ai.provider.name': 'bridle.offline',
            'gen_ai.usage.input_tokens': expect.any(Number),
            'gen_ai.usage.output_tokens': expect.any(Number),
            'gen_ai.response.finish_reasons': [expect.stringMatching(/^(stop|tool_calls)$/)],
          }),
        });
      }
      expect(chats.map((chat) => chat.attributes['gen_ai.response.finish_reasons'])).toContainEqual(['tool_calls']);
      const tool = trace.find((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
      expect(tool).toMatchObject({
        name: 'execute_tool add_task',
        kind: 1,
        parentSpanId: agent!.spanId,
        attributes: expect.objectContaining({
          'gen_ai.tool.name': 'add_task',
          'gen_ai.tool.call.id': expect.any(String),
          'bridle.decision.id': decisionId,
        }),
      });
      expect(tool!.attributes).not.toHaveProperty('error.type');
      // The task's INSERT ran under the tool call: pg's span, with its SQL and no parameter.
      const queries = trace.filter(
        (span) => span.attributes['db.system.name'] === 'postgresql' || span.attributes['db.system'] === 'postgresql',
      );
      expect(queries.some((query) => ancestors(query).includes(tool!))).toBe(true);

      // The turn's log lines carry its trace id.
      expect(service.output()).toContain(`"trace_id":"${agent!.traceId}"`);

      // An MCP client's tool calls: each a server span of the MCP conventions under its HTTP request.
      const client = new Client({ name: 'traced-client', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL('/mcp', service.baseUrl), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      try {
        expect((await client.callTool({ name: 'add_task', arguments: { title: 'Water the plants' } })).isError).toBeFalsy();
        expect((await client.callTool({ name: 'complete_task', arguments: { number: 999 } })).isError).toBe(true);
        expect((await client.callTool({ name: 'no_such_tool', arguments: {} })).isError).toBe(true);
      } finally {
        await client.close();
      }
      // A client's values as long as a request allows: a 20 000-character JSON-RPC id, a 5 000-character User-Agent.
      const longId = `id-${'x'.repeat(20_000)}`;
      const longCall = await fetch(`${service.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'User-Agent': `agent-${'y'.repeat(5_000)}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: longId, method: 'tools/call', params: { name: 'list_tasks', arguments: {} } }),
      });
      expect(longCall.status).toBe(200);
      expect(((await longCall.json()) as { id: string }).id).toBe(longId);
      const mcpSpans = async (count: number) => {
        for (let waited = 0; waited < 30_000; waited += 100) {
          if (receiver.spans.filter((span) => span.attributes['mcp.method.name'] === 'tools/call').length >= count) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return receiver.spans.filter((span) => span.attributes['mcp.method.name'] === 'tools/call');
      };
      const [added, notFound, unknown] = await mcpSpans(3);
      expect(added).toMatchObject({
        name: 'tools/call add_task',
        kind: 2,
        attributes: expect.objectContaining({
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'add_task',
          'jsonrpc.request.id': expect.any(String),
          'mcp.session.id': expect.any(String),
        }),
      });
      expect(added.attributes).not.toHaveProperty('error.type');
      expect(added.attributes).not.toHaveProperty('gen_ai.tool.call.arguments');
      const root = (span: ReceivedSpan): ReceivedSpan => {
        const parent = receiver.spans.find((other) => other.spanId === span.parentSpanId);
        return parent ? root(parent) : span;
      };
      expect(root(added)).toMatchObject({ name: 'POST /mcp', kind: 2, attributes: expect.objectContaining({ 'http.route': '/mcp' }) });
      // A refusal is a result, not a JSON-RPC error: tool_error, with our code beside it.
      expect(notFound).toMatchObject({
        name: 'tools/call complete_task',
        status: { code: 2 },
        attributes: expect.objectContaining({ 'error.type': 'tool_error', 'bridle.tool.error_code': 'TASK_NOT_FOUND' }),
      });
      // The long id is on its span bounded and marked, and no attribute of any span is longer
      // than the bound but the URL's and the SQL's, which are ours and bounded on their own.
      const [, , , long] = await mcpSpans(4);
      expect(long.attributes['jsonrpc.request.id']).toBe(`id-${'x'.repeat(101)}[… 19899 characters cut]`);
      const longer = receiver.spans.flatMap((span) =>
        Object.entries(span.attributes)
          .filter(([key, value]) => !OWN_LONG_ATTRIBUTES.has(key) && typeof value === 'string' && value.length > 128)
          .map(([key]) => `${span.name}: ${key}`),
      );
      expect(longer).toEqual([]);
      expect(receiver.spans.some((span) => String(span.attributes['user_agent.original']).startsWith('agent-yyy'))).toBe(true);
      // A name the client made up is no span's name.
      expect(unknown).toMatchObject({
        name: 'tools/call unknown_tool',
        attributes: expect.objectContaining({ 'gen_ai.tool.name': 'unknown_tool' }),
      });
    } finally {
      expect(await stop(service)).toBe(0);
      receiver.server.close();
    }
    // Nothing exported says the token, the password or what the person wrote.
    const exported = receiver.raw.join('\n');
    expect(exported).not.toContain(token!);
    expect(exported).not.toContain(credentials.password);
    expect(exported.toLowerCase()).not.toContain('buy milk');
    expect(exported.toLowerCase()).not.toContain('water the plants');
    expect(exported.toLowerCase()).not.toContain('authorization');
    expect(exported).not.toContain('x'.repeat(200));
    expect(exported).not.toContain('y'.repeat(200));
    // The SDK came from node_modules, and no part of it is in the bundle as well.
    const loaded = (await readFile(loadedFile, 'utf8')).split('\n');
    const bundled = JSON.parse(await readFile(join(OUT_DIR, 'server', 'bundled-packages.json'), 'utf8')) as string[];
    expect(loaded).toEqual(expect.arrayContaining(['@opentelemetry/sdk-node', '@opentelemetry/instrumentation-pg']));
    expect(loaded.filter((name) => bundled.includes(name))).toEqual([]);
  }, 120_000);

  it('loads no part of OpenTelemetry when no OTEL_* variable asks for traces', async () => {
    const loadedFile = join(dataDir, 'loaded-packages.txt');
    const service = await startService(MAIN, {
      BRIDLE_DATA_DIR: dataDir,
      NODE_OPTIONS: `--require ${PROBE}`,
      LOADED_PACKAGES_FILE: loadedFile,
    });
    try {
      const user = await signUpOnService(service, { email: 'untraced@example.com', password: 'a password long enough' });
      expect(
        (await callService(service, 'POST', `/api/${user.userId}/chat`, { message: 'add water plants' }, user.accessToken)).status,
      ).toBe(200);
    } finally {
      expect(await stop(service)).toBe(0);
    }
    const loaded = (await readFile(loadedFile, 'utf8')).split('\n');
    // The probe saw the packages the service loads from node_modules, and of OpenTelemetry only
    // its API, which prom-client loads for exemplars: a no-op without the SDK.
    expect(loaded).toEqual(expect.arrayContaining(['express', 'pg']));
    expect(loaded.filter((name) => name.startsWith('@opentelemetry/'))).toEqual(['@opentelemetry/api']);
    expect(service.output()).not.toContain('trace_id');
  }, 120_000);
});
