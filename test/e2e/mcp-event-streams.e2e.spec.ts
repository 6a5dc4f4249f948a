import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import request from 'supertest';
import { callService, ROOT, type RunningService, signUpOnService, startService, useBuiltService } from '../support/built-service';
import { useTestApp } from '../support/test-app';
import { usingPostgresServer, useTestDatabase } from '../support/test-database';

/**
 * One event stream per MCP session across the fleet: two replicas of the built service on one
 * PostgreSQL database. A GET /mcp takes the session's stream over from wherever it was open
 * (that one is closed), so each resource notification is sent once, and a replica that died
 * holding a stream holds nothing back.
 */
const OUT_DIR = join(ROOT, 'dist-test-event-streams');
const MAIN = join(OUT_DIR, 'main.js');
const ACCEPT = 'application/json, text/event-stream';
const PROTOCOL = '2025-11-25';

/** A GET /mcp event stream as read so far: its JSON-RPC messages, and whether the server ended it. */
interface EventStream {
  readonly status: number;
  readonly messages: { method?: string; params?: { uri?: string } }[];
  ended: boolean;
  close(): void;
}

const describeOnPostgres = usingPostgresServer ? describe : describe.skip;

/** One process (PGlite or PostgreSQL): a second GET on the replica that holds the stream. */
describe('a second GET for a session on the same replica', () => {
  const streams: EventStream[] = [];
  const sut = useTestApp({ beforeClose: () => streams.forEach((stream) => stream.close()) });
  const ada = sut.user();

  it('takes the stream over rather than being refused with 409, and the newest stream gets the change', async () => {
    const headers = { ...ada.auth, 'Content-Type': 'application/json', Accept: ACCEPT, 'Mcp-Protocol-Version': PROTOCOL };
    const opened = await fetch(`${sut.http}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'streams-e2e', version: '1.0.0' } },
      }),
    });
    await opened.arrayBuffer();
    const session = opened.headers.get('mcp-session-id')!;
    const inSession = { ...headers, 'Mcp-Session-Id': session };
    for (const message of [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'bridle://tasks' } },
    ]) {
      await (await fetch(`${sut.http}/mcp`, { method: 'POST', headers: inSession, body: JSON.stringify(message) })).arrayBuffer();
    }

    const first = await readEventStream(sut.http, ada.token, session);
    streams.push(first);
    const second = await readEventStream(sut.http, ada.token, session);
    streams.push(second);
    expect([first.status, second.status]).toEqual([200, 200]);
    await waitFor(() => first.ended);

    await request(sut.http).post(`/api/${ada.userId}/tasks`).set(ada.auth).send({ title: 'Once' }).expect(201);
    await waitFor(() => second.messages.some((message) => message.method === 'notifications/resources/updated'));
    expect(first.messages).toEqual([]);
  });
});

describeOnPostgres('one MCP event stream per session across two replicas', () => {
  let databaseUrl: string;
  const replicas: RunningService[] = [];
  const streams: EventStream[] = [];
  let token: string;
  let userId: string;
  let session: string;
  const db = useTestDatabase({
    beforeDispose: async () => {
      for (const stream of streams) stream.close();
      for (const replica of replicas) replica.child.kill('SIGKILL');
      await Promise.all(replicas.map((replica) => replica.exited));
    },
  });
  useBuiltService(OUT_DIR);

  beforeAll(async () => {
    if (db.settings.kind !== 'server') throw new Error('needs a PostgreSQL server');
    databaseUrl = db.settings.url;
    const env = { DATABASE_URL: databaseUrl, JWT_SECRET: 'a secret both replicas of this test share, 32+' };
    replicas.push(await startService(MAIN, env, 120_000));
    replicas.push(await startService(MAIN, env, 120_000));
    ({ accessToken: token, userId } = await signUpOnService(replicas[0], { email: 'streams@example.com', password: 'long enough here' }));

    const opened = await post(replicas[0], {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'streams-e2e', version: '1.0.0' } },
    });
    session = opened.headers.get('mcp-session-id')!;
    expect(session).toBeTruthy();
    await post(replicas[0], { jsonrpc: '2.0', method: 'notifications/initialized' });
    const subscribed = await post(replicas[1], { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'bridle://tasks' } });
    expect(subscribed.status).toBe(200);
  }, 300_000);

  async function post(replica: RunningService, message: unknown): Promise<Response> {
    const res = await fetch(`${replica.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: ACCEPT,
        'Mcp-Protocol-Version': PROTOCOL,
        ...(session ? { 'Mcp-Session-Id': session } : {}),
      },
      body: JSON.stringify(message),
    });
    await res.clone().arrayBuffer();
    return res;
  }

  async function openStream(replica: RunningService): Promise<EventStream> {
    const stream = await readEventStream(replica.baseUrl, token, session);
    streams.push(stream);
    return stream;
  }

  const addTask = async (replica: RunningService, title: string) =>
    expect((await callService(replica, 'POST', `/api/${userId}/tasks`, { title }, token)).status).toBe(201);
  const updates = (stream: EventStream) => stream.messages.filter((message) => message.method === 'notifications/resources/updated');

  it('closes the stream on one replica when a GET on the other takes the session’s stream over, and sends each change once', async () => {
    const first = await openStream(replicas[0]);
    expect(first.status).toBe(200);
    await addTask(replicas[0], 'Seen on the first stream');
    await waitFor(() => updates(first).length === 1);

    const second = await openStream(replicas[1]);
    expect(second.status).toBe(200);
    await waitFor(() => first.ended);
    expect(second.ended).toBe(false);

    await addTask(replicas[0], 'Seen once, on the second stream');
    await addTask(replicas[1], 'Seen once more, on the second stream');
    await waitFor(() => updates(second).length === 2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(updates(second)).toHaveLength(2);
    expect(updates(first)).toHaveLength(1);
  });

  it('takes over on the same replica too, rather than refusing a second GET with 409', async () => {
    const current = streams[streams.length - 1];
    const again = await openStream(replicas[1]);
    expect(again.status).toBe(200);
    await waitFor(() => current.ended);
    await addTask(replicas[0], 'On the newest stream');
    await waitFor(() => updates(again).length === 1);
  });

  it('holds nothing back when the replica holding the stream dies: a GET elsewhere gets it at once', async () => {
    replicas[1].child.kill('SIGKILL');
    await replicas[1].exited;
    const started = Date.now();
    const after = await openStream(replicas[0]);
    expect(after.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5_000);
    await addTask(replicas[0], 'After the holder died');
    await waitFor(() => updates(after).length === 1);
  });

  it('closes a stream whose claim another took in the database, even with no message on the fleet bus', async () => {
    const held = streams[streams.length - 1];
    const pg = new PgClient({ connectionString: databaseUrl });
    await pg.connect();
    try {
      await pg.query(`UPDATE mcp_sessions SET stream_holder = 'ffffffff.1', stream_claims = stream_claims + 1 WHERE id = $1`, [session]);
    } finally {
      await pg.end();
    }
    // The holder's check runs every 5 seconds.
    await waitFor(() => held.ended, 12_000);
  });
});

/** Opens GET /mcp for the session and reads its messages as they come. */
async function readEventStream(baseUrl: string, token: string, session: string): Promise<EventStream> {
  const abort = new AbortController();
  const res = await fetch(`${baseUrl}/mcp`, {
    headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream', 'Mcp-Session-Id': session, 'Mcp-Protocol-Version': PROTOCOL },
    signal: abort.signal,
  });
  const stream: EventStream = { status: res.status, messages: [], ended: false, close: () => abort.abort() };
  if (!res.ok || !res.body) {
    stream.ended = true;
    return stream;
  }
  void (async () => {
    const decoder = new TextDecoder();
    let text = '';
    try {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        text += decoder.decode(chunk, { stream: true });
        for (let end = text.indexOf('\n\n'); end !== -1; end = text.indexOf('\n\n')) {
          const data = text
            .slice(0, end)
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trim())
            .join('');
          text = text.slice(end + 2);
          if (data) stream.messages.push(JSON.parse(data) as EventStream['messages'][number]);
        }
      }
    } catch {
      // Aborted by the test.
    }
    stream.ended = true;
  })();
  return stream;
}

async function waitFor(probe: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
