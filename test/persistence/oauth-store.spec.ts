import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { TokenPair } from '../../src/application/identity/oauth/ports/oauth-store.port';
import { PostgresOAuthStore } from '../../src/infrastructure/persistence/repositories/postgres-oauth-store';
import { aClientRegistration, anAuthorizationRequest } from '../factories/oauth';
import { useOpenDatabase } from '../support/persistence';
import { addUser } from '../factories/users';

const RESOURCE = 'http://127.0.0.1:3000/mcp';
const hash = () => createHash('sha256').update(randomBytes(32)).digest('hex');

describe(`${PostgresOAuthStore.name} on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();
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
    sut = new PostgresOAuthStore(db.database);
    userId = (await addUser(db.database, { email: 'oauth-store@example.com' })).id;
    clientId = randomUUID();
    await sut.registerClient(clientId, aClientRegistration({ clientName: 'Client' }), now);
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
    const requestId = await sut.createRequest(anAuthorizationRequest({ clientId, resource: RESOURCE, expiresAt: inAnHour }), now);
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
      anAuthorizationRequest({ clientId, resource: RESOURCE, expiresAt: inAnHour }, { state: 's' }),
      now,
    );
    const answers = await Promise.all([
      sut.answerRequest(requestId, 'approved', userId, now),
      sut.answerRequest(requestId, 'denied', userId, now),
    ]);
    expect(answers.filter(Boolean)).toHaveLength(1);
    const late = await sut.createRequest(anAuthorizationRequest({ clientId, resource: RESOURCE, expiresAt: now }), now);
    expect(await sut.answerRequest(late, 'approved', userId, now)).toBe(false);
  });

  describe('sweep', () => {
    const day = 24 * 3_600_000;
    const before = new Date(now.getTime() - 7 * day);
    const longAgo = new Date(now.getTime() - 30 * day);
    const justBefore = new Date(before.getTime() - 60_000);
    const justAfter = new Date(before.getTime() + 60_000);
    const registration = aClientRegistration();
    const request = (client: string, expiresAt: Date) =>
      sut.createRequest(anAuthorizationRequest({ clientId: client, resource: RESOURCE, expiresAt }), longAgo);
    const sweepAll = async () => {
      const deleted: Record<string, number> = {};
      for (const kind of ['tokens', 'grants', 'requests', 'clients'] as const) deleted[kind] = await sut.sweep(kind, before, 100);
      return deleted;
    };

    it('deletes what stopped working before the cut-off, with what hangs on it, and keeps what still works', async () => {
      const newClient = async (createdAt: Date) => (await sut.registerClient(randomUUID(), registration, createdAt)).id;
      const unusedOld = await newClient(longAgo);
      const recent = await newClient(justAfter);
      const withGrant = await newClient(longAgo);
      const withRequest = await newClient(longAgo);
      const withRevokedGrant = await newClient(longAgo);

      // A live grant: its first refresh token expired long ago, after it had been exchanged for a pair that still works.
      const { grant } = await sut.upsertGrant(userId, withGrant, RESOURCE, ['tasks:read'], longAgo);
      const first = { ...pair(), accessExpiresAt: justBefore, refreshExpiresAt: justBefore };
      await sut.issueTokens(grant.id, first, longAgo);
      const firstRefresh = (await sut.findToken(first.refreshHash))!;
      const live = pair();
      expect(await sut.rotateRefreshToken(firstRefresh.id, grant.id, live, longAgo)).toBe(true);
      const recentlyExpired = { ...pair(), accessExpiresAt: justAfter, refreshExpiresAt: justAfter };
      await sut.issueTokens(grant.id, recentlyExpired, longAgo);

      // A grant revoked before the cut-off, with a token that has not expired and a code of an expired request; and one
      // revoked after it.
      const revoked = (await sut.upsertGrant(userId, withRevokedGrant, RESOURCE, ['tasks:read'], longAgo)).grant;
      const ofRevoked = pair();
      await sut.issueTokens(revoked.id, ofRevoked, longAgo);
      const revokedCode = hash();
      await sut.storeCode(revokedCode, await request(withRevokedGrant, justBefore), revoked.id, ['tasks:read'], inAnHour);
      await sut.revokeGrant(revoked.id, justBefore, userId);
      const recentlyRevoked = (await sut.upsertGrant(userId, recent, RESOURCE, ['tasks:read'], longAgo)).grant;
      await sut.revokeGrant(recentlyRevoked.id, justAfter, userId);

      // Requests: one expired before the cut-off with its code, one after.
      const expiredRequest = await request(withRequest, justBefore);
      const expiredCode = hash();
      await sut.storeCode(expiredCode, expiredRequest, grant.id, ['tasks:read'], justBefore);
      const recentRequest = await request(withRequest, justAfter);

      expect(await sweepAll()).toEqual({ tokens: 2, grants: 1, requests: 2, clients: 2 });

      // Gone: the expired pair, the revoked grant with its token and code, the expired request with its code,
      // the old client that never held anything, and the client whose only grant was the revoked one.
      for (const gone of [first.accessHash, first.refreshHash, ofRevoked.accessHash, ofRevoked.refreshHash])
        expect(await sut.findToken(gone)).toBeNull();
      expect(await sut.findCode(revokedCode)).toBeNull();
      expect(await sut.findCode(expiredCode)).toBeNull();
      expect(await sut.findRequest(expiredRequest)).toBeNull();
      expect(await sut.findClient(unusedOld)).toBeNull();
      expect(await sut.findClient(withRevokedGrant)).toBeNull();

      // Kept: the successors of the deleted refresh token (still working), what expired or was revoked after the
      // cut-off, the recent request, and every client that still holds a grant or a request, or is new.
      expect(await sut.findToken(live.accessHash)).toMatchObject({ grantId: grant.id, revokedAt: null });
      expect(await sut.findToken(live.refreshHash)).toMatchObject({ grantId: grant.id, usedAt: null, revokedAt: null });
      expect(await sut.findToken(recentlyExpired.refreshHash)).not.toBeNull();
      expect(await sut.findRequest(recentRequest)).not.toBeNull();
      for (const kept of [recent, withGrant, withRequest]) expect(await sut.findClient(kept)).not.toBeNull();
      expect((await sut.listGrants(userId)).map((g) => g.id)).toContain(grant.id);

      // Nothing is left to delete until more stops working.
      expect(await sweepAll()).toEqual({ tokens: 0, grants: 0, requests: 0, clients: 0 });
    });

    it('deletes at most the limit a call, oldest first', async () => {
      const { grant } = await sut.upsertGrant(userId, clientId, 'http://127.0.0.1:3000/other', ['tasks:read'], longAgo);
      const expiries = [3, 1, 2].map((daysEarlier) => new Date(before.getTime() - daysEarlier * day));
      const pairs = expiries.map((expiresAt) => ({ ...pair(), accessExpiresAt: expiresAt, refreshExpiresAt: expiresAt }));
      for (const issued of pairs) await sut.issueTokens(grant.id, issued, longAgo);
      expect(await sut.sweep('tokens', before, 4)).toBe(4);
      // The two pairs that expired first are gone; the last one to expire is left for the next call.
      expect(await sut.findToken(pairs[0].accessHash)).toBeNull();
      expect(await sut.findToken(pairs[2].accessHash)).toBeNull();
      expect(await sut.findToken(pairs[1].accessHash)).not.toBeNull();
      expect(await sut.sweep('tokens', before, 4)).toBe(2);
    });
  });
});
