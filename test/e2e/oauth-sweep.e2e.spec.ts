import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { OAuthStore } from '../../src/application/identity/oauth/ports/oauth-store.port';
import { openDatabase } from '../../src/infrastructure/persistence/database';
import { PostgresOAuthStore } from '../../src/infrastructure/persistence/repositories/postgres-oauth-store';
import { startTestApp, type TestApp } from '../support/test-app';
import { useTestDatabase } from '../support/test-database';
import { aClientRegistration } from '../factories/oauth';
import { addUser } from '../factories/users';

const DAY = 24 * 3_600_000;
const hash = () => createHash('sha256').update(randomBytes(32)).digest('hex');

/**
 * Every server process deletes the authorization server's records a week after they stopped
 * working, at start and every hour (SweepOAuthRecordsUseCase; what is kept and what goes is in
 * test/persistence/oauth-store.spec.ts).
 */
describe('OAuth records that stopped working', () => {
  let sut: TestApp | undefined;
  const db = useTestDatabase({ beforeDispose: () => sut?.close() });

  it('are deleted by a server process as it starts, and live ones are kept', async () => {
    const longAgo = new Date(Date.now() - 30 * DAY);
    const registration = aClientRegistration();
    const abandonedClient = randomUUID();
    const usedClient = randomUUID();
    const expired = hash();
    const live = hash();
    const seeded = await openDatabase(db.settings);
    try {
      const store = new PostgresOAuthStore(seeded);
      const userId = (await addUser(seeded, { email: 'oauth-sweep@example.com' })).id;
      await store.registerClient(abandonedClient, registration, longAgo);
      await store.registerClient(usedClient, registration, longAgo);
      const { grant } = await store.upsertGrant(userId, usedClient, 'http://127.0.0.1:9/mcp', ['tasks:read'], longAgo);
      const expiredAt = new Date(Date.now() - 8 * DAY);
      const pair = (access: string, expiresAt: Date) => ({
        accessHash: access,
        accessExpiresAt: expiresAt,
        refreshHash: hash(),
        refreshExpiresAt: expiresAt,
        scopes: ['tasks:read'] as const,
      });
      await store.issueTokens(grant.id, pair(expired, expiredAt), longAgo);
      await store.issueTokens(grant.id, pair(live, new Date(Date.now() + DAY)), longAgo);
    } finally {
      await seeded.destroy();
    }

    sut = await startTestApp(db);
    const store = sut.app.get(OAuthStore);
    // The sweep runs once the application has started; it deletes clients last, in the same run.
    const deadline = Date.now() + 10_000;
    while ((await store.findClient(abandonedClient)) !== null && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await store.findToken(expired)).toBeNull();
    expect(await store.findToken(live)).toMatchObject({ kind: 'access', revokedAt: null });
    expect(await store.findClient(abandonedClient)).toBeNull();
    expect(await store.findClient(usedClient)).not.toBeNull();
  });
});
