import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { openDatabase } from '../../src/infrastructure/persistence/database';
import { signUpAndIn } from '../support/accounts';
import {
  callService,
  ROOT,
  type RunningService,
  signUpOnService,
  spawnService,
  startService,
  useBuiltService,
} from '../support/built-service';
import { connect2026 } from '../support/mcp-2026-client';
import { leads, startedCampaign } from '../support/outreach';
import { TEST_JWT_SECRET, useTestApp } from '../support/test-app';
import { embeddedDataDir, testDataRoot, usingPostgresServer } from '../support/test-database';

/** The built service (`node dist/main.js`) stopped with SIGTERM while connections are open. */
const OUT_DIR = join(ROOT, 'dist-test-shutdown');
const MAIN = join(OUT_DIR, 'main.js');
const WORKER = join(OUT_DIR, 'worker.js');
/** What every event stream ended by a shutdown ends with (src/interfaces/http/graceful-shutdown.ts). */
const GOING_AWAY = 'retry: 1000\nevent: shutdown\ndata: {"reason":"server shutting down"}\n\n';

useBuiltService(OUT_DIR);

async function signIn(service: RunningService): Promise<{ token: string; userId: string }> {
  const { accessToken, userId } = await signUpOnService(service, { email: 'drain@example.com', password: 'long enough' });
  return { token: accessToken, userId };
}

/** A keep-alive connection that has had one answer and now sits idle; resolves `closed` when the server closes it. */
async function idleKeepAlive(service: RunningService): Promise<{ socket: Socket; closed: Promise<void> }> {
  const { hostname, port } = new URL(service.baseUrl);
  const socket = connect(Number(port), hostname);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  let received = '';
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
      if (received.includes('"database":"up"')) resolve();
    });
    socket.write(`GET /health HTTP/1.1\r\nHost: ${hostname}\r\nConnection: keep-alive\r\n\r\n`);
  });
  expect(received).toMatch(/^HTTP\/1\.1 200/);
  expect(received.toLowerCase()).toContain('connection: keep-alive');
  return { socket, closed };
}

/** Starts a chat stream and resolves once its first event arrived; `body` resolves with the whole stream when it ends or is cut. */
async function chatStream(service: RunningService, user: { token: string; userId: string }, message: string) {
  const { port } = new URL(service.baseUrl);
  let text = '';
  let firstEvent!: () => void;
  const started = new Promise<void>((resolve) => (firstEvent = resolve));
  const body = new Promise<string>((resolve) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/api/${user.userId}/chat/stream`,
        headers: { Authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
      },
      (res) => {
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          firstEvent();
        });
        res.on('close', () => resolve(text));
      },
    );
    req.on('error', () => resolve(text));
    req.end(JSON.stringify({ message }));
  });
  await started;
  return { body };
}

/** A connection whose request has begun (its headers are not all sent yet): no longer idle, not yet answered. */
function begunRequest(service: RunningService): { finish: () => Promise<string> } {
  const { hostname, port } = new URL(service.baseUrl);
  const socket = connect(Number(port), hostname);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(`GET /health HTTP/1.1\r\nHost: ${hostname}\r\nConnection: keep-alive\r\n`);
  return {
    finish: async () => {
      socket.write('\r\n');
      await closed;
      return received;
    },
  };
}

function eventNames(stream: string): string[] {
  return [...stream.matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
}

/**
 * An MCP session opened by the SDK's own client, which opens its GET event stream after
 * initialize; `stream` resolves with what that stream carried once it ends (the SDK reads its
 * events, not the `retry:` lines, so the test reads a copy of the bytes).
 */
async function mcpSession(service: RunningService, token: string): Promise<{ client: Client; stream: Promise<string> }> {
  // In an object: a promise resolved with a promise would wait for that one.
  let opened!: (stream: { text: Promise<string> }) => void;
  const streamOpened = new Promise<{ text: Promise<string> }>((resolve) => (opened = resolve));
  const copyingGetStream: FetchLike = async (url, init) => {
    const res = await fetch(url, init);
    if ((init?.method ?? 'GET') !== 'GET' || !res.ok || !res.body) return res;
    const [forSdk, forTest] = res.body.tee();
    opened({ text: new Response(forTest).text() });
    return new Response(forSdk, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  const client = new Client({ name: 'shutdown-e2e', version: '1.0.0' });
  // The service is going away: its reconnection attempts failing are expected.
  client.onerror = () => undefined;
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', service.baseUrl), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: copyingGetStream,
    reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
  });
  await client.connect(transport);
  return { client, stream: (await streamOpened).text };
}

describe('the service stopped with SIGTERM', () => {
  let dataDir: string;
  let service: RunningService | undefined;

  beforeEach(async () => {
    dataDir = await embeddedDataDir();
  });

  afterEach(async () => {
    service?.child.kill('SIGKILL');
    service = undefined;
    await rm(dataDir, { recursive: true, force: true });
  });

  it('closes idle connections, refuses new ones, finishes the stream in flight and exits 0', async () => {
    service = await startService(MAIN, { BRIDLE_DATA_DIR: dataDir, OFFLINE_STREAM_WORD_DELAY_MS: '300' });
    const user = await signIn(service);
    const idle = await idleKeepAlive(service);
    const begun = begunRequest(service);
    const inFlight = await chatStream(service, user, 'add buy milk');

    service.child.kill('SIGTERM');
    await idle.closed;
    await expect(fetch(`${service.baseUrl}/health`)).rejects.toThrow();
    // Answered during the drain: whole, with Connection: close, and then its socket closes.
    const answer = await begun.finish();
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('"database":"up"');

    const events = eventNames(await inFlight.body);
    expect(events.at(-1)).toBe('done');
    expect(events.filter((name) => name === 'delta').length).toBeGreaterThan(1);
    expect(await service.exited).toBe(0);
    expect(service.output()).toContain('Shut down cleanly');
  }, 120_000);

  it('cuts a request that outlasts SHUTDOWN_GRACE_MS, telling the stream to retry, and still exits 0', async () => {
    service = await startService(MAIN, {
      BRIDLE_DATA_DIR: dataDir,
      OFFLINE_STREAM_WORD_DELAY_MS: '1000',
      SHUTDOWN_GRACE_MS: '200',
    });
    const user = await signIn(service);
    const inFlight = await chatStream(service, user, 'add buy milk');

    service.child.kill('SIGTERM');

    const stream = await inFlight.body;
    expect(eventNames(stream)).not.toContain('done');
    expect(stream).toContain('retry: 1000\nevent: shutdown\n');
    expect(await service.exited).toBe(0);
  }, 120_000);

  it('with its in-process worker stuck in a cycle, exits 1 at the grace plus the hooks margin, not 0 before', async () => {
    // Longer than the 10 s or so after which, in these runs, nothing but the exit timer held the process.
    const graceMs = 12_000;
    const hooksMarginMs = 2_000;
    // The look-up never answers (until its deadline, far away): the worker's cycle is stuck in the channel.
    const database = await openDatabase({ kind: 'embedded', dataDir });
    await database.query(
      `INSERT INTO sandbox_faults (channel, target, code) VALUES ('linkedin', 'https://www.linkedin.com/in/stuck-in-process-1/', 'HANG_BEFORE')`,
    );
    await database.destroy();
    service = await startService(MAIN, {
      BRIDLE_DATA_DIR: dataDir,
      OUTREACH_WORKER: 'true',
      OUTREACH_ACTION_TIMEOUT_MS: '600000',
      OUTREACH_POLL_INTERVAL_MS: '50',
      SHUTDOWN_GRACE_MS: String(graceMs),
    });
    const user = await signUpAndIn(service.baseUrl);
    const campaignId = await startedCampaign(service.baseUrl, user, 'Stuck in process', leads(1, 'stuck-in-process', { email: false }));
    const claimed = async () => {
      const path = `/api/${user.userId}/campaigns/${campaignId}/tasks`;
      const { body } = await callService<{ items: { status: string }[] }>(service!, 'GET', path, undefined, user.token);
      return body.items.some((task) => task.status === 'InProgress');
    };
    const deadline = Date.now() + 60_000;
    while (!(await claimed())) {
      if (Date.now() > deadline) throw new Error(`the worker did not claim the task:\n${service.output().slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    service.child.kill('SIGTERM');
    // Exit 1 with this line is the hooks' deadline firing, which comes only after the grace.
    expect(await service.exited).toBe(1);
    expect(service.output()).toContain(`Not shut down ${hooksMarginMs} ms after the grace period`);
  }, 120_000);

  it("ends an MCP session's GET event stream at once with a retry hint and a shutdown event, and exits 0 well before the grace", async () => {
    // Longer than the test may take: a drain that waited on the stream would time the test out.
    const graceMs = 300_000;
    service = await startService(MAIN, { BRIDLE_DATA_DIR: dataDir, SHUTDOWN_GRACE_MS: String(graceMs) });
    const user = await signIn(service);
    const { client, stream } = await mcpSession(service, user.token);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);

    service.child.kill('SIGTERM');

    expect((await stream).endsWith(GOING_AWAY)).toBe(true);
    expect(await service.exited).toBe(0);
    expect(service.output()).toContain('Shut down cleanly');
    await client.close();
  }, 120_000);

  it('ends a 2026 client’s subscriptions/listen stream at once with its result, and exits 0 well before the grace', async () => {
    const graceMs = 300_000;
    service = await startService(MAIN, { BRIDLE_DATA_DIR: dataDir, SHUTDOWN_GRACE_MS: String(graceMs) });
    const user = await signIn(service);
    const client = await connect2026(`${service.baseUrl}/mcp`, user.token);
    const subscription = await client.listen({ resourceSubscriptions: ['bridle://tasks'] });

    service.child.kill('SIGTERM');

    // 'graceful': the listen request's own JSON-RPC result came before the stream ended (the specification's graceful end).
    expect(await subscription.closed).toBe('graceful');
    expect(await service.exited).toBe(0);
    expect(service.output()).toContain('Shut down cleanly');
    await client.close();
  }, 120_000);
});

const describeOnPostgres = usingPostgresServer ? describe : describe.skip;

// The worker and the sweeper that settles after it are separate processes on one database,
// which the test reads while the worker runs: PGlite is one process's, so on PostgreSQL only.
describeOnPostgres('a worker process stopped with SIGTERM while its cycle is stuck', () => {
  // Longer than the 10 s after which pg closes idle pool clients: then nothing but the grace
  // timer holds the process while its cycle waits on an unref'd deadline (the sandbox's hang).
  const graceMs = 12_000;
  /** Two shared cores: the exit is asserted against the grace plus this much. */
  const slackMs = 10_000;
  const workers: ReturnType<typeof spawnService>[] = [];
  const sut = useTestApp({
    beforeClose: async () => {
      for (const worker of workers) worker.child.kill('SIGKILL');
      await Promise.all(workers.map((worker) => worker.exited));
    },
  });
  let sql: DataSource;
  let dataDir: string;

  beforeAll(async () => {
    sql = sut.app.get(DataSource);
    dataDir = await mkdtemp(join(testDataRoot(), 'bridle-shutdown-worker-'));
  });

  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  function startWorker(env: Record<string, string>): ReturnType<typeof spawnService> {
    if (sut.db.settings.kind !== 'server') throw new Error('PostgreSQL only');
    const worker = spawnService(WORKER, {
      DATABASE_URL: sut.db.settings.url,
      JWT_SECRET: TEST_JWT_SECRET,
      BRIDLE_DATA_DIR: dataDir,
      OUTREACH_POLL_INTERVAL_MS: '50',
      // Its action is settled by the sweeper once its lease has passed.
      OUTREACH_LEASE_MS: '2000',
      OUTREACH_SWEEP_INTERVAL_MS: '300',
      ...env,
    });
    workers.push(worker);
    return worker;
  }

  async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      const value = await probe();
      if (value !== undefined) return value;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(
      `timed out waiting for ${what}; workers said:\n${workers.map((worker) => worker.output().slice(-2000)).join('\n---\n')}`,
    );
  }

  const actionStatus = async (key: string) =>
    (await sql.query<{ status: string }[]>(`SELECT status FROM outreach_actions WHERE idempotency_key = $1`, [key]))[0]?.status;

  it('exits 1 at SHUTDOWN_GRACE_MS, and the sweeper settles the action it left in flight as after a crash', async () => {
    const user = await signUpAndIn(sut.http);
    const campaignId = await startedCampaign(sut.http, user, 'Stuck at shutdown', leads(1, 'stuck-at-shutdown', { email: false }));
    // The look-up never answers (until its deadline, far away): the cycle is stuck in the channel.
    await sql.query(
      `INSERT INTO sandbox_faults (channel, target, code) VALUES ('linkedin', 'https://www.linkedin.com/in/stuck-at-shutdown-1/', 'HANG_BEFORE')`,
    );
    const stuck = startWorker({ SHUTDOWN_GRACE_MS: String(graceMs), OUTREACH_ACTION_TIMEOUT_MS: '600000' });
    const key = await until(async () => {
      const rows = await sql.query<{ idempotency_key: string }[]>(
        `SELECT a.idempotency_key FROM outreach_actions a
         JOIN sandbox_faults f ON f.target = 'https://www.linkedin.com/in/stuck-at-shutdown-1/' AND f.remaining = 0
         WHERE a.campaign_id = $1 AND a.status = 'in_flight'`,
        [campaignId],
      );
      return rows[0]?.idempotency_key;
    }, 'the action to hang');

    stuck.child.kill('SIGTERM');
    const code = await Promise.race([
      stuck.exited,
      new Promise((resolve) => setTimeout(() => resolve('still running'), graceMs + slackMs)),
    ]);

    // Exit 1 with this line is the grace's deadline: the cycle had its time.
    expect(code).toBe(1);
    expect(stuck.output()).toContain('did not finish within SHUTDOWN_GRACE_MS');
    expect(await actionStatus(key)).toBe('in_flight');

    const sweeper = startWorker({});
    await until(async () => ((await actionStatus(key)) === 'unknown' ? true : undefined), 'the sweeper to settle the action');
    sweeper.child.kill('SIGTERM');
    expect(await sweeper.exited).toBe(0);
    // Settled, never sent again: the channel has no effect under its key.
    expect(await sql.query(`SELECT 1 FROM sandbox_linkedin_actions WHERE idempotency_key = $1`, [key])).toEqual([]);
  }, 180_000);
});
