import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as PgClient } from 'pg';
import { callService, ROOT, type RunningService, signUpOnService, startService, useBuiltService } from '../support/built-service';
import { CHROMIUM } from '../support/browser';
import { startRoundRobinProxy, type RoundRobinProxy } from '../support/round-robin-proxy';
import { usingPostgresServer, useTestDatabase } from '../support/test-database';

/**
 * Three replicas of the built service on one PostgreSQL database, behind a proxy that sends
 * each request to the next replica with no stickiness. A session is served by whichever replica a request lands on.
 */
const OUT_DIR = join(ROOT, 'dist-test-replicas');
const MAIN = join(OUT_DIR, 'main.js');
const USERS = 5;
const PASSWORD = 'long enough for a test';
const CLIENTS_PER_USER = 3;

interface Person {
  readonly email: string;
  readonly userId: string;
  readonly auth: { Authorization: string };
}

interface Connected {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  readonly person: Person;
  readonly errors: Error[];
}

const describeOnPostgres = usingPostgresServer ? describe : describe.skip;

describeOnPostgres('MCP sessions across three replicas behind a round-robin proxy', () => {
  let databaseUrl: string;
  const replicas: RunningService[] = [];
  let proxy: RoundRobinProxy;
  const people: Person[] = [];
  const connected: Connected[] = [];
  const db = useTestDatabase({
    beforeDispose: async () => {
      await Promise.all(connected.map(({ client }) => client.close().catch(() => undefined)));
      await proxy?.close();
      for (const replica of replicas) replica.child.kill('SIGKILL');
      await Promise.all(replicas.map((replica) => replica.exited));
    },
  });
  useBuiltService(OUT_DIR);

  const env = () => ({
    DATABASE_URL: databaseUrl,
    JWT_SECRET: 'a secret every replica of this test shares, 32+',
    MCP_RATE_LIMIT_PER_MINUTE: '100000',
  });

  const startReplica = () => startService(MAIN, env(), 120_000);

  beforeAll(async () => {
    if (db.settings.kind !== 'server') throw new Error('needs a PostgreSQL server');
    databaseUrl = db.settings.url;
    // One first, so that only it could have migrations to run; then the other two together.
    replicas.push(await startReplica());
    replicas.push(...(await Promise.all([startReplica(), startReplica()])));
    proxy = await startRoundRobinProxy(() => replicas.map((replica) => replica.baseUrl));
    for (let i = 0; i < USERS; i++) people.push(await signUp(proxy, `replicas-${i}@example.com`));
  }, 300_000);

  async function connect(person: Person, baseUrl = proxy.url): Promise<Connected> {
    const client = new Client({ name: 'replicas-e2e', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { confirm: true } }));
    const errors: Error[] = [];
    client.onerror = (error) => errors.push(error);
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit: { headers: person.auth } });
    await client.connect(transport);
    return { client, transport, person, errors };
  }

  const sessionHits = (sessionId: string | undefined) => proxy.hits.filter((hit) => hit.sessionId === sessionId);

  it('connects 15 SDK clients that list and call tools, each session served by several replicas', async () => {
    // One after another, so that the proxy's turns spread each session's requests deterministically.
    for (const person of people) {
      for (let i = 0; i < CLIENTS_PER_USER; i++) connected.push(await connect(person));
    }
    for (const [i, { client }] of connected.entries()) {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('add_task');
      const added = await client.callTool({ name: 'add_task', arguments: { title: `From client ${i}` } });
      expect(added.isError).toBeFalsy();
    }

    expect(connected).toHaveLength(USERS * CLIENTS_PER_USER);
    for (const { transport } of connected) {
      const targets = new Set(sessionHits(transport.sessionId).map((hit) => hit.target));
      expect(targets.size).toBeGreaterThan(1);
    }
    for (const person of people) {
      const tasks = (await callService<{ title: string }[]>(via(proxy), 'GET', `/api/${person.userId}/tasks`, undefined, bearer(person)))
        .body;
      expect(tasks).toHaveLength(CLIENTS_PER_USER);
    }
  });

  it('deletes once when the answer to its question lands on another replica than the call waiting for it', async () => {
    const { client, transport, person } = connected[0];
    const crossed: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      const title = `Delete me across replicas ${i}`;
      expect((await callService(via(proxy), 'POST', `/api/${person.userId}/tasks`, { title }, bearer(person))).status).toBe(201);
      const before = sessionHits(transport.sessionId).length;

      const result = await client.callTool({ name: 'delete_task', arguments: { query: title } });

      expect(result.structuredContent).toMatchObject({ deleted: [{ title }] });
      const hits = sessionHits(transport.sessionId).slice(before);
      const call = hits.find((hit) => hit.rpc === 'tools/call');
      const answer = hits.find((hit) => hit.rpc === 'response');
      expect(call && answer).toBeTruthy();
      crossed.push(call!.target !== answer!.target);
    }
    expect(crossed).toContain(true);

    const outcomes = await query<{ status: string }>(
      `SELECT status FROM audit_log WHERE tool = 'delete_task' AND actor_id = $1 AND status IN ('pending', 'succeeded') ORDER BY seq`,
      [person.userId],
    );
    expect(outcomes.map((row) => row.status)).toEqual(['pending', 'succeeded', 'pending', 'succeeded', 'pending', 'succeeded']);
  });

  // Replica A writes, B holds the MCP subscriber's event stream, C serves the console.
  it('shows a task changed over MCP on one replica to a subscriber on another and in a console on the third', async () => {
    const subscriber = connected[CLIENTS_PER_USER];
    const person = subscriber.person;
    const updates: string[] = [];
    subscriber.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push(notification.params.uri);
    });
    await subscriber.client.subscribeResource({ uri: 'bridle://tasks' });
    const stream = await waitFor(() => sessionHits(subscriber.transport.sessionId).find((hit) => hit.method === 'GET'));
    const [a, c] = replicas.filter((replica) => replica.baseUrl !== stream.target);

    if (!existsSync(join(ROOT, 'web', 'dist', 'index.html'))) {
      execFileSync(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', 'web'], { cwd: ROOT, stdio: 'pipe' });
    }
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-background-networking'] });
    try {
      const page = await browser.newPage();
      await page.goto(c.baseUrl);
      await page.getByLabel('Email').fill(person.email);
      await page.getByLabel('Password').fill(PASSWORD);
      const listening = page.waitForResponse((res) => res.url().endsWith('/tasks/events') && res.status() === 200, { timeout: 30_000 });
      await page.getByRole('button', { name: 'Sign in' }).click();
      await listening;

      const writer = await connect(person, a.baseUrl);
      await writer.client.callTool({ name: 'add_task', arguments: { title: 'Written on replica A' } });
      await writer.client.close();

      await waitFor(() => updates.includes('bridle://tasks') || undefined);
      await page
        .getByRole('complementary', { name: 'Tasks' })
        .getByRole('listitem')
        .filter({ hasText: 'Written on replica A' })
        .waitFor({ state: 'visible', timeout: 20_000 });
    } finally {
      await browser.close();
    }
  });

  it('keeps every session through a replica killed and restarted: each client’s next call succeeds without a new initialize', async () => {
    const initializes = () => proxy.hits.filter((hit) => hit.rpc === 'initialize').length;
    const sessions = connected.map(({ transport }) => transport.sessionId);
    const before = initializes();

    const killed = replicas[1];
    killed.child.kill('SIGKILL');
    await killed.exited;
    for (const { client } of connected) expect((await client.callTool({ name: 'list_tasks', arguments: {} })).isError).toBeFalsy();

    replicas[1] = await startReplica();
    for (const { client } of connected) expect((await client.callTool({ name: 'list_tasks', arguments: {} })).isError).toBeFalsy();

    expect(proxy.hits.some((hit) => hit.target === replicas[1].baseUrl && hit.rpc === 'tools/call')).toBe(true);
    expect(connected.map(({ transport }) => transport.sessionId)).toEqual(sessions);
    expect(initializes()).toBe(before);
  });

  async function query<T>(text: string, values: unknown[]): Promise<T[]> {
    const client = new PgClient({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (await client.query(text, values)).rows as T[];
    } finally {
      await client.end();
    }
  }
});

async function signUp(proxy: RoundRobinProxy, email: string): Promise<Person> {
  const { accessToken, userId } = await signUpOnService(via(proxy), { email, password: PASSWORD });
  return { email, userId, auth: { Authorization: `Bearer ${accessToken}` } };
}

function via(proxy: RoundRobinProxy): { baseUrl: string } {
  return { baseUrl: proxy.url };
}

function bearer(person: Person): string {
  return person.auth.Authorization.slice('Bearer '.length);
}

async function waitFor<T>(probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
