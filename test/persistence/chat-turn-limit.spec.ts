import { randomUUID } from 'node:crypto';
import { ChatTurnLimitError, ConversationNotFoundError } from '../../src/domain/chat/conversation';
import { type Database, openDatabase } from '../../src/infrastructure/persistence/database';
import { PostgresConversationStore } from '../../src/infrastructure/persistence/repositories/postgres-conversation-store';
import { PostgresUserRepository } from '../../src/infrastructure/persistence/repositories/postgres-user.repository';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

/** The chat's per-user limit is counted by the turn's own opening statement (no statement of its own). */
describe(`the chat limit in the opening statement on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  let testDb: TestDatabase;
  let database: Database;
  let store: PostgresConversationStore;
  let users: PostgresUserRepository;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    database = await openDatabase(testDb.settings);
    store = new PostgresConversationStore(database.dataSource);
    users = new PostgresUserRepository(database.dataSource);
  });

  afterAll(async () => {
    await database?.close();
    await testDb?.dispose();
  });

  const newUser = async () =>
    (await users.create({ email: `limit-${randomUUID()}@example.com`, passwordHash: 'scrypt$x', role: 'user' })).id;
  const start = (userId: string, conversationId: string | null, turnsPerMinute: number) =>
    store.startTurn({
      userId,
      conversationId,
      message: 'add milk',
      decisionId: randomUUID(),
      model: { provider: 'offline', model: 'test' },
      window: 20,
      turnsPerMinute,
      now: new Date(),
    });
  const count = async (table: 'messages' | 'decision_logs' | 'conversations', userId: string) => {
    const where = table === 'messages' ? 'conversation_id IN (SELECT id FROM conversations WHERE user_id = $1)' : 'user_id = $1';
    const [row] = await database.dataSource.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, [userId]);
    return row.n;
  };

  it('opens turns up to the limit, then refuses the next one without storing any of it', async () => {
    const userId = await newUser();
    const first = await start(userId, null, 3);
    await start(userId, first.conversationId, 3);
    await start(userId, null, 3);

    const refused = start(userId, first.conversationId, 3);
    await expect(refused).rejects.toBeInstanceOf(ChatTurnLimitError);
    const error = (await refused.catch((e: unknown) => e)) as ChatTurnLimitError;
    expect(error.retryAfterSeconds).toBeGreaterThan(55);
    expect(error.retryAfterSeconds).toBeLessThanOrEqual(60);
    // A new conversation is refused too, and nothing of either refused turn is stored.
    await expect(start(userId, null, 3)).rejects.toBeInstanceOf(ChatTurnLimitError);
    expect(await count('conversations', userId)).toBe(2);
    expect(await count('messages', userId)).toBe(6);
    expect(await count('decision_logs', userId)).toBe(3);
  });

  it('counts per user, in the rows @nestjs/throttler used for it (chat:<userId>)', async () => {
    const [alice, bob] = [await newUser(), await newUser()];
    await start(alice, null, 1);
    await expect(start(alice, null, 1)).rejects.toBeInstanceOf(ChatTurnLimitError);
    await expect(start(bob, null, 1)).resolves.toMatchObject({ history: [] });
    const rows = await database.dataSource.query<{ key: string; hits: number }[]>(
      `SELECT key, hits FROM rate_limits WHERE key = ANY($1) ORDER BY hits DESC`,
      [[`chat:${alice}`, `chat:${bob}`]],
    );
    // The hit that passed the limit is counted (it started the block); Bob's is his own.
    expect(rows).toEqual([
      { key: `chat:${alice}`, hits: 2 },
      { key: `chat:${bob}`, hits: 1 },
    ]);
  });

  it('counts a turn on a conversation that is not the user’s, and still answers not found', async () => {
    const userId = await newUser();
    await expect(start(userId, randomUUID(), 1)).rejects.toBeInstanceOf(ConversationNotFoundError);
    await expect(start(userId, null, 1)).rejects.toBeInstanceOf(ChatTurnLimitError);
  });

  it('lets the next turn through once the window has passed', async () => {
    const userId = await newUser();
    await start(userId, null, 1);
    await expect(start(userId, null, 1)).rejects.toBeInstanceOf(ChatTurnLimitError);
    // The minute (and the block of a minute it earned) are over.
    await database.dataSource.query(
      `UPDATE rate_limits SET window_ends = now() - interval '1 second', blocked_until = now() - interval '1 second' WHERE key = $1`,
      [`chat:${userId}`],
    );
    await expect(start(userId, null, 1)).resolves.toMatchObject({ history: [] });
  });
});
