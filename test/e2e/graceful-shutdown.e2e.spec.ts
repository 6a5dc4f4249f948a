import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { buildService, callService, removeBuild, ROOT, type RunningService, startService } from '../support/built-service';
import { testDataRoot } from '../support/test-database';

/** The built service (`node dist/main.js`) stopped with SIGTERM while connections are open (issue 34). */
const OUT_DIR = join(ROOT, 'dist-test-shutdown');
const MAIN = join(OUT_DIR, 'main.js');

async function signIn(service: RunningService): Promise<{ token: string; userId: string }> {
  const credentials = { email: 'drain@example.com', password: 'long enough' };
  expect((await callService(service, 'POST', '/auth/register', credentials)).status).toBe(201);
  const { accessToken, userId } = (await callService(service, 'POST', '/auth/login', credentials)).body as {
    accessToken: string;
    userId: string;
  };
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

describe('the service stopped with SIGTERM', () => {
  let dataDir: string;
  let service: RunningService | undefined;

  beforeAll(async () => {
    await buildService(OUT_DIR);
  }, 120_000);

  afterAll(() => removeBuild(OUT_DIR));

  beforeEach(async () => {
    dataDir = await mkdtemp(join(testDataRoot(), 'bridle-shutdown-'));
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
});
