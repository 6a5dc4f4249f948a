import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { INTERRUPTED_ANSWER } from '../../src/domain/chat/conversation';
import type { DatabaseSettings } from '../../src/infrastructure/config/app-config';
import type { DataSource } from 'typeorm';
import { openDatabase } from '../../src/infrastructure/persistence/database';
import { PostgresAuditReader } from '../../src/infrastructure/persistence/repositories/postgres-audit-reader';
import { chatCompletion, FakeProviderServer, toolCall } from '../support/fake-provider-server';
import { TEST_JWT_SECRET } from '../support/test-app';
import { testDataRoot, useTestDatabase } from '../support/test-database';
import { callService, ROOT, type RunningService, startService, useBuiltService } from '../support/built-service';

/**
 * The built service (`node main.js`) SIGKILLed in the middle of a burst of chat turns that
 * run tools (the model: a local server speaking OpenAI's wire format), then started again: its sweeper settles every tool call the kill left pending,
 * answers every turn it cut off, and the audit chain still verifies. On PGlite (the killed
 * process's data-folder lock is stale and taken over) and on PostgreSQL.
 */
const OUT_DIR = join(ROOT, 'dist-test-crash');
const MAIN = join(OUT_DIR, 'main.js');
const USERS = 3;
const LOOPS_PER_USER = 4;
const LOOPS = USERS * LOOPS_PER_USER;
/** Turns answered before the kill: enough that every loop is mid-burst. */
const ANSWERED_BEFORE_KILL = 24;

type Service = RunningService;

interface User {
  readonly userId: string;
  readonly token: string;
}

/** Waits for `probe` to give a value, polling; fails with `what` after `timeoutMs`. */
async function until<T>(probe: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('chat turns cut off by SIGKILL', () => {
  let model: FakeProviderServer;
  let dataDir: string;
  const children = new Set<ChildProcess>();
  const db = useTestDatabase({
    beforeDispose: () => {
      for (const child of children) child.kill('SIGKILL');
    },
  });
  useBuiltService(OUT_DIR);
  /** Once set, the model answers nothing more: each turn that asks it stays under way until the kill. */
  let holding = false;
  let held = 0;

  beforeAll(async () => {
    model = await FakeProviderServer.start();
    model.respond((req) => {
      if (holding) {
        held++;
        return { hang: true };
      }
      const messages = req.body.messages as { role: string; content?: string }[];
      const last = messages[messages.length - 1];
      if (last.role === 'tool') return { json: chatCompletion({ content: 'Done.' }), delayMs: 150 };
      const add = /^add (.+)$/.exec(last.content ?? '');
      const call = add
        ? toolCall('call_1', 'add_task', JSON.stringify({ title: add[1] }))
        : toolCall('call_1', 'complete_task', JSON.stringify({ number: Number(/\d+/.exec(last.content ?? '')?.[0] ?? 1) }));
      return { json: chatCompletion({ tool_calls: [call] }, 'tool_calls'), delayMs: 50 };
    });
    dataDir = await mkdtemp(join(testDataRoot(), 'bridle-crash-'));
  });

  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    await model?.stop();
  });

  async function start(env: Record<string, string> = {}): Promise<Service> {
    const settings: DatabaseSettings = db.settings;
    const service = await startService(MAIN, {
      ...model.openAiEnv,
      JWT_SECRET: TEST_JWT_SECRET,
      AUTH_RATE_LIMIT_PER_MINUTE: '10000',
      CHAT_RATE_LIMIT_PER_MINUTE: '100000',
      ...(settings.kind === 'embedded' ? { BRIDLE_DATA_DIR: settings.dataDir } : { BRIDLE_DATA_DIR: dataDir, DATABASE_URL: settings.url }),
      ...env,
    });
    children.add(service.child);
    void service.exited.then(() => children.delete(service.child));
    return service;
  }

  const call = callService;

  /** Opens the database from this process: possible for PGlite only while no service holds it. */
  async function withDatabase<T>(work: (database: DataSource) => Promise<T>): Promise<T> {
    const database = await openDatabase(db.settings);
    try {
      return await work(database);
    } finally {
      await database.destroy();
    }
  }

  /** Every conversation of the user as role/status pairs, oldest message first. */
  async function conversationsOf(service: Service, user: User) {
    const list = await call<{ items: { id: string }[] }>(
      service,
      'GET',
      `/api/${user.userId}/conversations?limit=100`,
      undefined,
      user.token,
    );
    return Promise.all(
      list.body.items.map(async ({ id }) => {
        const page = await call<{ items: { role: string; content: string; status: string | null }[] }>(
          service,
          'GET',
          `/api/${user.userId}/conversations/${id}/messages?limit=100`,
          undefined,
          user.token,
        );
        return page.body.items;
      }),
    );
  }

  const alternates = (messages: { role: string }[]) =>
    messages.length % 2 === 0 && messages.every((message, i) => message.role === (i % 2 === 0 ? 'user' : 'assistant'));

  it('settles every tool call and answers every turn the kill cut off, and the audit chain still verifies', async () => {
    const timings: Record<string, number> = {};
    let mark = Date.now();
    const lap = (name: string) => {
      timings[name] = Date.now() - mark;
      mark = Date.now();
    };

    // No deadline ends a held turn before the kill does.
    const first = await start({ AGENT_TURN_TIMEOUT_MS: '300000', LLM_TIMEOUT_MS: '300000' });
    const users: User[] = [];
    for (let i = 0; i < USERS; i++) {
      const credentials = { email: `crash-${i}@example.com`, password: 'long enough' };
      expect((await call(first, 'POST', '/auth/register', credentials)).status).toBe(201);
      const login = await call<{ accessToken: string; userId: string }>(first, 'POST', '/auth/login', credentials);
      users.push({ userId: login.body.userId, token: login.body.accessToken });
    }
    lap('start and sign up');

    // Loops that each add a task, then mark it done, in their own conversation, until the kill.
    let answered = 0;
    let killed = false;
    const loop = async (user: User, loopIndex: number) => {
      let conversationId: string | undefined;
      let lastNumber = 1;
      for (let turn = 0; !killed; turn++) {
        const message = turn % 2 === 0 ? `add crash chore ${loopIndex}-${turn}` : `mark task ${lastNumber} done`;
        const reply = await call<{ conversationId: string; toolCalls: { result?: { task?: { number: number } } }[] }>(
          first,
          'POST',
          `/api/${user.userId}/chat`,
          { message, conversationId },
          user.token,
        ).catch(() => null);
        if (reply === null) return;
        expect(reply.status).toBe(200);
        conversationId = reply.body.conversationId;
        lastNumber = reply.body.toolCalls[0]?.result?.task?.number ?? lastNumber;
        answered++;
      }
    };
    const burst = users.flatMap((user, u) => Array.from({ length: LOOPS_PER_USER }, (_, l) => loop(user, u * LOOPS_PER_USER + l)));
    await until(() => Promise.resolve(answered >= ANSWERED_BEFORE_KILL), `${ANSWERED_BEFORE_KILL} answered turns`);
    // Then every loop's turn goes on until it waits for the model, which no longer answers: the kill cuts off each of them.
    holding = true;
    await until(() => Promise.resolve(held === LOOPS), `all ${LOOPS} turns waiting for the model`);
    killed = true;
    first.child.kill('SIGKILL');
    await first.exited;
    await Promise.all(burst);
    lap('burst until the kill');

    const left = await withDatabase(async (dataSource) => {
      const [row] = await dataSource.query<{ conversations: string; turns: string; calls: string; pending: string; orphans: string }[]>(
        `SELECT (SELECT count(*) FROM conversations) AS conversations,
                (SELECT count(*) FROM messages WHERE status = 'in_progress') AS turns,
                (SELECT count(*) FROM messages m JOIN decision_logs d ON d.id = m.decision_id
                   WHERE m.status = 'in_progress' AND d.status = 'pending') AS pending,
                (SELECT count(*) FROM audit_log a WHERE a.decision_id IS NOT NULL
                   AND NOT EXISTS (SELECT 1 FROM decision_logs d WHERE d.id = a.decision_id)) AS orphans,
                (SELECT count(*) FROM audit_log p WHERE p.status = 'pending' AND p.source IN ('chat', 'mcp')
                   AND NOT EXISTS (SELECT 1 FROM audit_log o WHERE o.pending_seq = p.seq)) AS calls`,
      );
      return {
        conversations: Number(row.conversations),
        turns: Number(row.turns),
        calls: Number(row.calls),
        pending: Number(row.pending),
        orphans: Number(row.orphans),
      };
    });
    // Each loop's turn was cut off and left its decision pending; no audit row names a decision that is not there.
    expect(left).toMatchObject({ conversations: LOOPS, turns: LOOPS, pending: LOOPS, orphans: 0 });
    lap('count leftovers');

    const second = await start({ AGENT_TURN_TIMEOUT_MS: '1000', CHAT_SWEEP_INTERVAL_MS: '250' });
    lap('restart');
    // Answered only once its tool calls are settled, so a whole history means a settled audit log too.
    await until(async () => {
      const conversations = (await Promise.all(users.map((user) => conversationsOf(second, user)))).flat();
      return conversations.length === left.conversations && conversations.every(alternates);
    }, 'every conversation to alternate again');
    lap('sweep');

    const conversations = (await Promise.all(users.map((user) => conversationsOf(second, user)))).flat();
    const interrupted = conversations.flat().filter((message) => message.status === 'interrupted');
    expect(interrupted).toHaveLength(left.turns);
    expect(new Set(interrupted.map((message) => message.content))).toEqual(new Set([INTERRUPTED_ANSWER]));

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(second.output()).toContain('settled chat turns cut off before they finished');
    // The sweeper's log line carries counts, never what people wrote.
    const sweepLines = second
      .output()
      .split('\n')
      .filter((line) => line.includes('settled chat turns cut off'));
    expect(sweepLines.join('\n')).not.toMatch(/crash chore|mark task/);
    lap('stop');

    await withDatabase(async (dataSource) => {
      expect(
        await dataSource.query(
          `SELECT p.seq FROM audit_log p WHERE p.status = 'pending' AND p.source IN ('chat', 'mcp')
           AND NOT EXISTS (SELECT 1 FROM audit_log o WHERE o.pending_seq = p.seq)`,
        ),
      ).toEqual([]);
      expect(
        await dataSource.query(`SELECT pending_seq FROM audit_log WHERE pending_seq IS NOT NULL GROUP BY pending_seq HAVING count(*) > 1`),
      ).toEqual([]);
      const swept = await dataSource.query<{ status: string; actor_id: string; result: { task?: { number: number; title: string } } }[]>(
        `SELECT status, actor_id, result FROM audit_log
         WHERE error_code = 'UNKNOWN_OUTCOME' OR (result->>'settledAfterCrash')::boolean`,
      );
      expect(swept).toHaveLength(left.calls);
      // A crashed add counted as done names a task that is there, with its title.
      for (const row of swept.filter((r) => r.result.task)) {
        const [task] = await dataSource.query<{ title: string }[]>(`SELECT title FROM tasks WHERE user_id = $1 AND number = $2`, [
          row.actor_id,
          row.result.task!.number,
        ]);
        expect(task?.title).toBe(row.result.task!.title);
      }
      expect(await dataSource.query(`SELECT id FROM messages WHERE status = 'in_progress'`)).toEqual([]);
      expect(await dataSource.query(`SELECT id FROM decision_logs WHERE status = 'pending'`)).toEqual([]);
      const [{ interrupted }] = await dataSource.query<{ interrupted: string }[]>(
        `SELECT count(*) AS interrupted FROM decision_logs WHERE status = 'interrupted'`,
      );
      expect(Number(interrupted)).toBe(left.turns);
      await expect(new PostgresAuditReader(dataSource).verify()).resolves.toMatchObject({ verified: true, firstBadSeq: null });
    });
    lap('check the database');
    process.stdout.write(`chat crash e2e (${db.kind}): ${JSON.stringify({ ...timings, answered, left })}\n`);
  }, 300_000);
});
