import { randomUUID } from 'node:crypto';
import type { AccountCheck } from '../../src/application/identity/ports/access-token-service.port';
import { ChatTurnLimitError, ConversationNotFoundError } from '../../src/domain/chat/conversation';
import { AccountGoneError, CredentialsChangedError } from '../../src/domain/identity/user';
import { PostgresConversationStore } from '../../src/infrastructure/persistence/repositories/postgres-conversation-store';
import { PostgresUserRepository } from '../../src/infrastructure/persistence/repositories/postgres-user.repository';
import { useOpenDatabase } from '../support/persistence';

/**
 * A chat turn's opening statement checks what would otherwise take statements of their own:
 * the signed-in session's account (when the bearer guard left it to the turn), then the
 * user's per-minute limit.
 */
describe(`the account check and the chat limit in the opening statement on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();
  let store: PostgresConversationStore;
  let users: PostgresUserRepository;

  beforeAll(() => {
    store = new PostgresConversationStore(db.database);
    users = new PostgresUserRepository(db.database);
  });

  const newUser = async () =>
    (await users.create({ email: `limit-${randomUUID()}@example.com`, passwordHash: 'scrypt$x', role: 'user' })).id;
  const start = (userId: string, conversationId: string | null, turnsPerMinute: number, account: AccountCheck | null = null) =>
    store.startTurn({
      userId,
      conversationId,
      message: 'add milk',
      decisionId: randomUUID(),
      model: { provider: 'offline', model: 'test' },
      window: 20,
      turnsPerMinute,
      account: account ? { kind: 'check', ...account } : { kind: 'checked-by-guard' },
      now: new Date(),
    });
  const count = async (table: 'messages' | 'decision_logs' | 'conversations' | 'rate_limits', userId: string) => {
    const where = {
      messages: 'conversation_id IN (SELECT id FROM conversations WHERE user_id = $1)',
      decision_logs: 'user_id = $1',
      conversations: 'user_id = $1',
      rate_limits: `key = 'chat:' || $1`,
    }[table];
    const [row] = await db.database.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, [userId]);
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
    const rows = await db.database.query<{ key: string; hits: number }[]>(
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
    await db.database.query(
      `UPDATE rate_limits SET window_ends = now() - interval '1 second', blocked_until = now() - interval '1 second' WHERE key = $1`,
      [`chat:${userId}`],
    );
    await expect(start(userId, null, 1)).resolves.toMatchObject({ history: [] });
  });

  describe("with the session's account check", () => {
    it('opens the turn when the account is at the version the session was issued under', async () => {
      const userId = await newUser();
      await expect(start(userId, null, 5, { credentialsVersion: 0 })).resolves.toMatchObject({ history: [] });
      expect(await count('messages', userId)).toBe(2);
      expect(await count('rate_limits', userId)).toBe(1);
    });

    it('refuses a session issued before the password changed, storing and counting nothing', async () => {
      const userId = await newUser();
      const first = await start(userId, null, 5, { credentialsVersion: 0 });
      expect(await users.changePassword(userId, 'scrypt$y', 0)).toMatchObject({ credentialsVersion: 1 });

      await expect(start(userId, first.conversationId, 5, { credentialsVersion: 0 })).rejects.toBeInstanceOf(CredentialsChangedError);
      await expect(start(userId, null, 5, { credentialsVersion: 0 })).rejects.toBeInstanceOf(CredentialsChangedError);
      expect(await count('conversations', userId)).toBe(1);
      expect(await count('messages', userId)).toBe(2);
      expect(await count('decision_logs', userId)).toBe(1);
      const [hit] = await db.database.query<{ hits: number }[]>(`SELECT hits FROM rate_limits WHERE key = $1`, [`chat:${userId}`]);
      expect(hit.hits).toBe(1);
      // A session signed in after the change is current.
      await expect(start(userId, first.conversationId, 5, { credentialsVersion: 1 })).resolves.toMatchObject({
        conversationId: first.conversationId,
      });
    });

    it('refuses a session whose account does not exist, before the limit, storing nothing', async () => {
      const nobody = randomUUID();
      await expect(start(nobody, null, 5, { credentialsVersion: 0 })).rejects.toBeInstanceOf(AccountGoneError);
      expect(await count('rate_limits', nobody)).toBe(0);
      expect(await count('conversations', nobody)).toBe(0);
    });

    it('is checked before the limit: a blocked user with a stale session learns to sign in again', async () => {
      const userId = await newUser();
      await start(userId, null, 1, { credentialsVersion: 0 });
      await expect(start(userId, null, 1, { credentialsVersion: 0 })).rejects.toBeInstanceOf(ChatTurnLimitError);
      await users.changePassword(userId, 'scrypt$y', 0);
      await expect(start(userId, null, 1, { credentialsVersion: 0 })).rejects.toBeInstanceOf(CredentialsChangedError);
    });
  });
});
