import { join } from 'node:path';
import type { Client as Client2026, McpSubscription } from '@modelcontextprotocol/client';
import { Client as Client2025 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as PgClient } from 'pg';
import { callService, ROOT, type RunningService, signUpOnService, startService, useBuiltService } from '../support/built-service';
import { connect2026, type ElicitAnswer } from '../support/mcp-2026-client';
import { startRoundRobinProxy, type RoundRobinProxy } from '../support/round-robin-proxy';
import { usingPostgresServer, useTestDatabase } from '../support/test-database';

/**
 * The 2026-07-28 revision across three replicas of the built service on one PostgreSQL
 * database, behind a proxy that sends each request to the next replica with no stickiness:
 * the official v2 client pinned to 2026-07-28, and a v1 (2025) client in the same run.
 */
const OUT_DIR = join(ROOT, 'dist-test-2026-replicas');
const MAIN = join(OUT_DIR, 'main.js');
const PASSWORD = 'long enough for a test';

interface Person {
  readonly userId: string;
  readonly token: string;
}

const describeOnPostgres = usingPostgresServer ? describe : describe.skip;

describeOnPostgres('MCP 2026-07-28 across three replicas behind a round-robin proxy', () => {
  let databaseUrl: string;
  const replicas: RunningService[] = [];
  let proxy: RoundRobinProxy;
  const clients: { close(): Promise<void> }[] = [];
  let alice: Person;
  let bob: Person;
  const db = useTestDatabase({
    beforeDispose: async () => {
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
      await proxy?.close();
      for (const replica of replicas) replica.child.kill('SIGKILL');
      await Promise.all(replicas.map((replica) => replica.exited));
    },
  });
  useBuiltService(OUT_DIR);

  const alive = () => replicas.filter((replica) => replica.child.exitCode === null && replica.child.signalCode === null);
  const startReplica = () =>
    startService(
      MAIN,
      { DATABASE_URL: databaseUrl, JWT_SECRET: 'a secret every replica of this test shares, 32+', MCP_RATE_LIMIT_PER_MINUTE: '100000' },
      120_000,
    );

  beforeAll(async () => {
    if (db.settings.kind !== 'server') throw new Error('needs a PostgreSQL server');
    databaseUrl = db.settings.url;
    // One first, so that only it could have migrations to run; then the other two together.
    replicas.push(await startReplica());
    replicas.push(...(await Promise.all([startReplica(), startReplica()])));
    // Only the replicas alive: a killed one's address is left out, as a proxy's health check would.
    proxy = await startRoundRobinProxy(() => alive().map((replica) => replica.baseUrl));
    alice = await signUp('alice-2026@example.com');
    bob = await signUp('bob-2026@example.com');
  }, 300_000);

  async function signUp(email: string): Promise<Person> {
    const { accessToken, userId } = await signUpOnService({ baseUrl: proxy.url }, { email, password: PASSWORD });
    return { userId, token: accessToken };
  }

  async function open2026(person: Person, answer?: (message: string) => ElicitAnswer | Promise<ElicitAnswer>, baseUrl = proxy.url) {
    const client = await connect2026(`${baseUrl}/mcp`, person.token, { answer });
    clients.push(client);
    return client;
  }

  const addTask = async (person: Person, title: string) => {
    const added = await callService<{ number: number }>(
      { baseUrl: proxy.url },
      'POST',
      `/api/${person.userId}/tasks`,
      { title },
      person.token,
    );
    expect(added.status).toBe(201);
    return added.body.number;
  };
  const titles = async (person: Person) =>
    (
      await callService<{ title: string }[]>({ baseUrl: proxy.url }, 'GET', `/api/${person.userId}/tasks`, undefined, person.token)
    ).body.map((task) => task.title);
  /** The replica that served each `tools/call` from `from` on, in order. */
  const toolCallTargets = (from: number) =>
    proxy.hits
      .slice(from)
      .filter((hit) => hit.rpc === 'tools/call')
      .map((hit) => hit.target);

  it('lists, adds and lists through any replica, and deletes exactly once when the confirmed retry lands on another replica', async () => {
    const client = await open2026(alice, () => ({ action: 'accept', content: { confirm: true } }));
    const listed = async () => JSON.stringify((await client.callTool({ name: 'list_tasks', arguments: {} })).structuredContent);
    expect(await listed()).not.toContain('Buy milk across replicas');
    expect((await client.callTool({ name: 'add_task', arguments: { title: 'Buy milk across replicas' } })).isError).toBeFalsy();
    expect(await listed()).toContain('Buy milk across replicas');

    const before = proxy.hits.length;
    const deleted = await client.callTool({ name: 'delete_task', arguments: { query: 'Buy milk across replicas' } });

    expect(deleted.structuredContent).toMatchObject({ deleted: [{ title: 'Buy milk across replicas' }] });
    const [asked, retried, ...more] = toolCallTargets(before);
    expect(more).toEqual([]);
    expect(retried).not.toBe(asked);
    expect(await titles(alice)).not.toContain('Buy milk across replicas');
    expect(await deleteOutcomes(alice)).toEqual(['confirmation_required', 'pending', 'succeeded']);
  });

  it('deletes nothing when the person declines', async () => {
    await addTask(alice, 'Keep me across replicas');
    const client = await open2026(alice, () => ({ action: 'decline' }));
    const before = proxy.hits.length;

    const kept = await client.callTool({ name: 'delete_task', arguments: { query: 'Keep me across replicas' } });

    expect(kept.structuredContent).toMatchObject({ deleted: [], confirmed: false });
    expect(toolCallTargets(before)).toHaveLength(2);
    expect(await titles(alice)).toContain('Keep me across replicas');
    expect((await deleteOutcomes(alice)).slice(3)).toEqual(['confirmation_required']);
  });

  it('a v1 (2025) client in the same run confirms by elicitation, in its session, as before', async () => {
    await addTask(bob, 'Delete me the 2025 way');
    const client = new Client2025({ name: 'replicas-2025', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { confirm: true } };
    });
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', proxy.url), {
      requestInit: { headers: { Authorization: `Bearer ${bob.token}` } },
    });
    await client.connect(transport);
    clients.push(client);
    expect(transport.sessionId).toBeDefined();

    const deleted = await client.callTool({ name: 'delete_task', arguments: { query: 'Delete me the 2025 way' } });

    expect(deleted.structuredContent).toMatchObject({ deleted: [{ title: 'Delete me the 2025 way' }] });
    expect(asked).toEqual([expect.stringContaining("'Delete me the 2025 way'")]);
    expect(await titles(bob)).not.toContain('Delete me the 2025 way');
    expect(await deleteOutcomes(bob)).toEqual(['confirmation_required', 'pending', 'succeeded']);
  });

  it('a subscriber on replica A hears a change made through replica B, and never another person’s; A’s shutdown ends its listen with its result', async () => {
    const [a, b] = replicas;
    const heard = { alice: [] as string[], bob: [] as string[] };
    let aliceHeardAt: number | undefined;
    const listenOnA = async (person: Person, into: string[]): Promise<McpSubscription> => {
      const client: Client2026 = await open2026(person, undefined, a.baseUrl);
      const hear = (what: string) => {
        if (person === alice) aliceHeardAt ??= performance.now();
        into.push(what);
      };
      client.setNotificationHandler('notifications/resources/updated', (note) => hear(`updated ${note.params.uri}`));
      client.setNotificationHandler('notifications/resources/list_changed', () => hear('list_changed'));
      return client.listen({ resourcesListChanged: true, resourceSubscriptions: ['bridle://tasks'] });
    };
    const aliceListens = await listenOnA(alice, heard.alice);
    const bobListens = await listenOnA(bob, heard.bob);
    const writerOnB = (person: Person) => open2026(person, undefined, b.baseUrl);
    const [bobOnB, aliceOnB] = await Promise.all([writerOnB(bob), writerOnB(alice)]);

    // Bob's change first, heard on A by Bob's own listener: any copy of it to Alice's stream went out before what follows.
    await bobOnB.callTool({ name: 'add_task', arguments: { title: 'Bob’s, on B' } });
    await until(() => heard.bob.length >= 2);
    const sent = performance.now();
    await aliceOnB.callTool({ name: 'add_task', arguments: { title: 'Alice’s, on B' } });
    const answered = performance.now();
    await until(() => heard.alice.length >= 2);
    const latency = { fromCall: Math.round(aliceHeardAt! - sent), fromAnswer: Math.round(aliceHeardAt! - answered) };
    process.stdout.write(`listen latency across replicas (ms): ${JSON.stringify(latency)}\n`);

    // A drained ends each listen with the specification's result, after everything sent before it: the counts are final.
    a.child.kill('SIGTERM');
    expect(await aliceListens.closed).toBe('graceful');
    expect(await bobListens.closed).toBe('graceful');
    expect(heard.alice).toEqual(['list_changed', 'updated bridle://tasks']);
    expect(heard.bob).toEqual(['list_changed', 'updated bridle://tasks']);
    expect(await a.exited).toBe(0);
  });

  it('a replica SIGKILLed between the two rounds changes nothing for the client: the retry lands on another and deletes once', async () => {
    await addTask(alice, 'Delete me through a crash');
    expect(alive()).toHaveLength(2);
    let killed: RunningService | undefined;
    const before = proxy.hits.length;
    const client = await open2026(alice, async () => {
      const [asked] = toolCallTargets(before);
      killed = replicas.find((replica) => replica.baseUrl === asked)!;
      killed.child.kill('SIGKILL');
      await killed.exited;
      return { action: 'accept', content: { confirm: true } };
    });

    const deleted = await client.callTool({ name: 'delete_task', arguments: { query: 'Delete me through a crash' } });

    expect(deleted.isError).toBeFalsy();
    expect(deleted.structuredContent).toMatchObject({ deleted: [{ title: 'Delete me through a crash' }] });
    const [asked, retried, ...more] = toolCallTargets(before);
    expect(more).toEqual([]);
    expect(asked).toBe(killed!.baseUrl);
    expect(retried).toBe(alive()[0].baseUrl);
    expect(await titles(alice)).not.toContain('Delete me through a crash');
    expect((await deleteOutcomes(alice)).slice(4)).toEqual(['confirmation_required', 'pending', 'succeeded']);
  });

  /** The person's delete_task audit outcomes, in order (the dry run that asked, then what ran). */
  async function deleteOutcomes(person: Person): Promise<string[]> {
    const client = new PgClient({ connectionString: databaseUrl });
    await client.connect();
    try {
      const rows = await client.query<{ status: string }>(
        `SELECT status FROM audit_log WHERE tool = 'delete_task' AND actor_id = $1 ORDER BY seq`,
        [person.userId],
      );
      return rows.rows.map((row) => row.status);
    } finally {
      await client.end();
    }
  }
});

async function until(done: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
