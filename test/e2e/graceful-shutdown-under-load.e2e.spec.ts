import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { PAGE_LIMIT_MAX } from '../../src/domain/shared/pagination';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { ROOT, type RunningService, startService, useBuiltService } from '../support/built-service';
import { parseSse } from '../support/chat-stream';
import { type RoundRobinProxy, startRoundRobinProxy } from '../support/round-robin-proxy';
import { TEST_JWT_SECRET } from '../support/test-app';
import { testDataRoot, usingPostgresServer, useTestDatabase } from '../support/test-database';

/**
 * Two replicas of the built service on one PostgreSQL behind a round-robin proxy, one stopped with SIGTERM while clients keep chatting and calling the task
 * API. PGlite is one process's database, so this runs in the PostgreSQL pass.
 */
const OUT_DIR = join(ROOT, 'dist-test-shutdown-load');
const MAIN = join(OUT_DIR, 'main.js');
const GRACE_MS = 3_000;
const CLIENTS = 6;

/** What a client got for one request: the whole body, or how it ended without one. */
interface Received {
  readonly status: number | null;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
  /** The response's last byte arrived (its Content-Length, or the last chunk). */
  readonly complete: boolean;
  readonly error: string | null;
}

interface Turn {
  readonly message: string;
  readonly response: string;
}

const describeOnPostgres = usingPostgresServer ? describe : describe.skip;

describeOnPostgres('two replicas on one PostgreSQL behind a proxy, one stopped with SIGTERM', () => {
  let dataDir: string;
  let proxy: RoundRobinProxy | undefined;
  const replicas: RunningService[] = [];
  const agent = new Agent({ keepAlive: true });
  const db = useTestDatabase({
    beforeDispose: async () => {
      agent.destroy();
      await proxy?.close();
      for (const replica of replicas) replica.child.kill('SIGKILL');
      await Promise.all(replicas.map((replica) => replica.exited));
    },
  });
  useBuiltService(OUT_DIR);

  beforeAll(async () => {
    if (db.settings.kind !== 'server') throw new Error('PostgreSQL only');
    dataDir = await mkdtemp(join(testDataRoot(), 'bridle-shutdown-load-'));
    for (const name of ['a', 'b']) {
      replicas.push(
        await startService(MAIN, {
          DATABASE_URL: db.settings.url,
          // The generated secret would differ per data folder: replicas share one.
          JWT_SECRET: TEST_JWT_SECRET,
          BRIDLE_DATA_DIR: join(dataDir, name),
          SHUTDOWN_GRACE_MS: String(GRACE_MS),
          CHAT_RATE_LIMIT_PER_MINUTE: '1000000',
          AUTH_RATE_LIMIT_PER_MINUTE: '1000',
          API_RATE_LIMIT_PER_MINUTE: '1000000',
          // A streamed answer of a dozen words takes over half a second: the signal finds one under way.
          OFFLINE_STREAM_WORD_DELAY_MS: '50',
        }),
      );
    }
    proxy = await startRoundRobinProxy(() => replicas.map((replica) => replica.baseUrl));
  }, 120_000);

  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  function send(method: string, path: string, user: SignedInUser, body?: object): Promise<Received> {
    return new Promise((resolve) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = httpRequest(new URL(path, proxy!.url), {
        method,
        agent,
        headers: { ...user.auth, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let error: string | null = null;
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (cause: NodeJS.ErrnoException) => (error = cause.code ?? cause.message));
        res.on('close', () =>
          resolve({ status: res.statusCode ?? null, headers: res.headers, body: Buffer.concat(chunks), complete: res.complete, error }),
        );
      });
      // Before any response: the proxy passes on a refused connection, so nothing should end here.
      req.on('error', (cause: NodeJS.ErrnoException) =>
        resolve({ status: null, headers: {}, body: Buffer.alloc(0), complete: false, error: cause.code ?? cause.message }),
      );
      req.end(payload);
    });
  }

  /** Why `received` is not a whole JSON answer with `status`, or null when it is one. */
  function jsonProblem(what: string, received: Received, status: number): string | null {
    if (!received.complete) return `${what}: cut (${received.error ?? 'no error'}, status ${String(received.status)})`;
    if (received.status !== status) return `${what}: status ${String(received.status)}: ${received.body.toString()}`;
    if (Number(received.headers['content-length']) !== received.body.length) {
      return `${what}: Content-Length ${String(received.headers['content-length'])}, ${received.body.length} bytes`;
    }
    try {
      JSON.parse(received.body.toString());
      return null;
    } catch {
      return `${what}: not JSON: ${received.body.toString()}`;
    }
  }

  /** Where each client's chat stream under way began in the proxy's hits, by user id. */
  const streaming = new Map<string, number>();

  /** One client: chat turns (plain and streamed) and task calls in turn, in one conversation, until `stopped`. */
  async function client(user: SignedInUser, id: number, stopped: () => boolean, problems: string[]): Promise<Turn[]> {
    const turns: Turn[] = [];
    let conversationId: string | undefined;
    const chat = `/api/${user.userId}/chat`;
    const tasks = `/api/${user.userId}/tasks`;
    for (let n = 0; !stopped(); n++) {
      const message = `add call client ${id} about item ${n}`;
      const what = `client ${id} request ${n}`;
      if (n % 4 === 0) {
        const received = await send('POST', chat, user, { message, conversationId });
        const problem = jsonProblem(`${what} (chat)`, received, 200);
        if (problem) problems.push(problem);
        else {
          const reply = JSON.parse(received.body.toString()) as { conversationId: string; response: string };
          conversationId = reply.conversationId;
          turns.push({ message, response: reply.response });
        }
      } else if (n % 4 === 2) {
        streaming.set(user.userId, proxy!.hits.length);
        const received = await send('POST', `${chat}/stream`, user, { message, conversationId });
        streaming.delete(user.userId);
        const events = received.complete && received.status === 200 ? parseSse(received.body.toString()) : [];
        const done = events.at(-1);
        if (done?.event !== 'done') {
          problems.push(
            `${what} (stream): ${received.error ?? 'no done event'}, status ${String(received.status)}: ${received.body.toString()}`,
          );
        } else {
          conversationId = done.data.conversationId as string;
          turns.push({ message, response: done.data.response as string });
        }
      } else if (n % 4 === 1) {
        const problem = jsonProblem(`${what} (add task)`, await send('POST', tasks, user, { title: `Task ${id}.${n}` }), 201);
        if (problem) problems.push(problem);
      } else {
        const problem = jsonProblem(`${what} (list tasks)`, await send('GET', tasks, user), 200);
        if (problem) problems.push(problem);
      }
    }
    return turns;
  }

  async function history(user: SignedInUser, conversationId: string): Promise<[string, string][]> {
    const messages: [string, string][] = [];
    let cursor: string | null = null;
    do {
      const query = `limit=${PAGE_LIMIT_MAX}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const received = await send('GET', `/api/${user.userId}/conversations/${conversationId}/messages?${query}`, user);
      expect(jsonProblem('history', received, 200)).toBeNull();
      const page = JSON.parse(received.body.toString()) as { items: { role: string; content: string }[]; nextCursor: string | null };
      messages.push(...page.items.map((message): [string, string] => [message.role, message.content]));
      cursor = page.nextCursor;
    } while (cursor);
    return messages;
  }

  async function until(condition: () => boolean, what: string, timeoutMs = 90_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('exits within its grace period, cuts no response, and loses no chat turn', async () => {
    const [stopping, survivor] = replicas;
    const users = await Promise.all(Array.from({ length: CLIENTS }, () => signUpAndIn(proxy!.url)));
    const hits = proxy!.hits;
    const servedBy = (replica: RunningService, from = 0) => hits.slice(from).filter((hit) => hit.target === replica.baseUrl).length;
    let stopped = false;
    const problems: string[] = [];
    const clients = users.map((user, id) => client(user, id, () => stopped, problems));

    const before = hits.length;
    await until(() => servedBy(stopping, before) >= 20 && servedBy(survivor, before) >= 20, 'both replicas to serve the clients');
    const streamingOnStopping = () =>
      [...streaming].some(([userId, from]) =>
        hits.slice(from).some((hit) => hit.target === stopping.baseUrl && hit.path === `/api/${userId}/chat/stream`),
      );
    await until(streamingOnStopping, 'a chat stream under way on the replica to stop');
    const atSignal = hits.length;
    stopping.child.kill('SIGTERM');
    const code = await stopping.exited;
    const atExit = hits.length;
    await until(() => servedBy(survivor, atExit) >= 40, 'the survivor to serve the clients alone');
    stopped = true;
    const turns = await Promise.all(clients);

    // Exit 0 with "Shut down cleanly" is an exit within the grace and its hooks' margin: past that it exits 1.
    expect(code).toBe(0);
    expect(stopping.output()).toContain('Shut down cleanly');
    expect(problems).toEqual([]);
    expect(servedBy(survivor, atSignal)).toBeGreaterThan(0);
    expect(servedBy(stopping, atExit)).toBe(0);

    // Every turn a client saw complete is in its conversation, in order, nothing else.
    for (const [id, user] of users.entries()) {
      const seen = turns[id];
      expect(seen.length).toBeGreaterThan(2);
      const conversations = await send('GET', `/api/${user.userId}/conversations`, user);
      const { items } = JSON.parse(conversations.body.toString()) as { items: { id: string }[] };
      expect(items).toHaveLength(1);
      expect(await history(user, items[0].id)).toEqual(
        seen.flatMap((turn): [string, string][] => [
          ['user', turn.message],
          ['assistant', turn.response],
        ]),
      );
    }
  }, 240_000);
});
