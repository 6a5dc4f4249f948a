import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { TokenPair } from '../../src/application/identity/oauth/ports/oauth-store.port';
import { type Database, openDatabase } from '../../src/infrastructure/persistence/database';
import { PostgresOAuthStore } from '../../src/infrastructure/persistence/repositories/postgres-oauth-store';
import { PostgresUserRepository } from '../../src/infrastructure/persistence/repositories/postgres-user.repository';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const RESOURCE = 'http://127.0.0.1:3000/mcp';
const hash = () => createHash('sha256').update(randomBytes(32)).digest('hex');

describe(`${PostgresOAuthStore.name} on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  let testDb: TestDatabase;
  let database: Database;
  let sut: PostgresOAuthStore;
  let userId: string;
  let clientId: string;
  const now = new Date('2026-11-23T10:00:00.000Z');
  const inAnHour = new Date(now.getTime() + 3_600_000);

  const pair = (): TokenPair => ({
    accessHash: hash(),
    accessExpiresAt: inAnHour,
    refreshHash: hash(),
    refreshExpiresAt: inAnHour,
    scopes: ['tasks:read'],
  });

  beforeAll(async () => {
    testDb = await createTestDatabase();
    database = await openDatabase(testDb.settings);
    sut = new PostgresOAuthStore(database.dataSource);
    const users = new PostgresUserRepository(database.dataSource);
    userId = (await users.create({ email: 'oauth-store@example.com', passwordHash: 'scrypt$x', role: 'user' })).id;
    clientId = randomUUID();
    await sut.registerClient(
      clientId,
      { redirectUris: ['http://127.0.0.1:9/cb'], clientName: 'Client', clientUri: null, softwareId: null, softwareVersion: null },
      now,
    );
  });

  afterAll(async () => {
    await database?.close();
    await testDb?.dispose();
  });

  it('keeps one live grant per person, client and resource, widened by a later consent', async () => {
    const first = await sut.upsertGrant(userId, clientId, RESOURCE, ['tasks:read'], now);
    const second = await sut.upsertGrant(userId, clientId, RESOURCE, ['chat', 'tasks:read'], now);
    expect(first.created).toBe(true);
    expect(second).toMatchObject({ created: false, grant: { id: first.grant.id, scopes: ['tasks:read', 'chat'] } });
    expect((await sut.listGrants(userId)).map((grant) => grant.id)).toEqual([first.grant.id]);
    await sut.revokeGrant(first.grant.id, now, userId);
    expect((await sut.upsertGrant(userId, clientId, RESOURCE, ['tasks:read'], now)).created).toBe(true);
  });

  it('lets one of two racing uses of a code win', async () => {
    const { grant } = await sut.upsertGrant(userId, clientId, RESOURCE, ['tasks:read'], now);
    const requestId = await sut.createRequest(
      {
        clientId,
        redirectUri: 'http://127.0.0.1:9/cb',
        codeChallenge: 'c'.repeat(43),
        scopes: ['tasks:read'],
        state: null,
        resource: RESOURCE,
        expiresAt: inAnHour,
      },
      now,
    );
    const code = hash();
    await sut.storeCode(code, requestId, grant.id, ['tasks:read'], inAnHour);
    const uses = await Promise.all([sut.useCode(code, now), sut.useCode(code, now), sut.useCode(code, now)]);
    expect(uses.filter(Boolean)).toHaveLength(1);
    expect(await sut.findCode(code)).toMatchObject({ grantId: grant.id, userId, clientId, usedAt: now });
  });

  it('rotates a refresh token once when two refreshes race, and revokes every token with its grant', async () => {
    const { grant } = await sut.upsertGrant(userId, clientId, RESOURCE, ['tasks:read'], now);
    const issued = pair();
    await sut.issueTokens(grant.id, issued, now);
    const refresh = (await sut.findToken(issued.refreshHash))!;
    const successors = [pair(), pair(), pair()];
    const rotated = await Promise.all(successors.map((next) => sut.rotateRefreshToken(refresh.id, grant.id, next, now)));
    expect(rotated.filter(Boolean)).toHaveLength(1);
    const stored = await Promise.all(successors.map((next) => sut.findToken(next.refreshHash)));
    expect(stored.filter(Boolean)).toHaveLength(1);
    expect(await sut.findToken(issued.refreshHash)).toMatchObject({ usedAt: now, revokedAt: null });

    await sut.revokeGrant(grant.id, now, userId);
    const access = await sut.findToken(issued.accessHash);
    expect(access).toMatchObject({ revokedAt: now, grantRevokedAt: now });
    expect(await sut.revokeGrant(grant.id, now, userId)).toBeNull();
  });

  it('answers a request once, and not after it expired', async () => {
    const requestId = await sut.createRequest(
      {
        clientId,
        redirectUri: 'http://127.0.0.1:9/cb',
        codeChallenge: 'c'.repeat(43),
        scopes: ['tasks:read'],
        state: 's',
        resource: RESOURCE,
        expiresAt: inAnHour,
      },
      now,
    );
    const answers = await Promise.all([
      sut.answerRequest(requestId, 'approved', userId, now),
      sut.answerRequest(requestId, 'denied', userId, now),
    ]);
    expect(answers.filter(Boolean)).toHaveLength(1);
    const late = await sut.createRequest(
      {
        clientId,
        redirectUri: 'http://127.0.0.1:9/cb',
        codeChallenge: 'c'.repeat(43),
        scopes: ['tasks:read'],
        state: null,
        resource: RESOURCE,
        expiresAt: now,
      },
      now,
    );
    expect(await sut.answerRequest(late, 'approved', userId, now)).toBe(false);
  });
});
