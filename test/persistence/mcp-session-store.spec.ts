import { randomUUID } from 'node:crypto';
import { PostgresMcpSessionStore } from '../../src/infrastructure/persistence/repositories/postgres-mcp-session-store';
import { useOpenDatabase } from '../support/persistence';
import { addUser } from '../factories/users';

describe(`${PostgresMcpSessionStore.name} on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();
  let sut: PostgresMcpSessionStore;
  let alice: string;
  let bob: string;
  const t0 = new Date('2026-11-28T10:00:00.000Z');
  const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
  const initialize = { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'c', version: '1' } };

  beforeAll(async () => {
    sut = new PostgresMcpSessionStore(db.database);
    alice = (await addUser(db.database, { email: 'sessions-alice@example.com' })).id;
    bob = (await addUser(db.database, { email: 'sessions-bob@example.com' })).id;
  });

  it('keeps what a replica needs to serve the session, and finds it only for its person while it is in use', async () => {
    const id = randomUUID();
    expect(await sut.open({ id, userId: alice, initialize }, t0, 10)).toEqual([]);

    expect(await sut.find(id, alice, at(-30))).toEqual({ id, userId: alice, initialize, subscriptions: [], lastSeenAt: t0 });
    expect(await sut.find(id, bob, at(-30))).toBeNull();
    expect(await sut.find('not-a-uuid', alice, at(-30))).toBeNull();
    // Not seen since the cut-off: idle.
    expect(await sut.find(id, alice, at(1))).toBeNull();
    await sut.touch(id, at(5));
    expect((await sut.find(id, alice, at(1)))?.lastSeenAt).toEqual(at(5));
    // A touch never moves the time back.
    await sut.touch(id, at(2));
    expect((await sut.find(id, alice, at(1)))?.lastSeenAt).toEqual(at(5));
  });

  it('ends the least recently used of a person’s sessions beyond the cap, and only theirs', async () => {
    const bobs = randomUUID();
    await sut.open({ id: bobs, userId: bob, initialize }, at(10), 2);
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    await sut.open({ id: ids[0], userId: alice, initialize }, at(10), 2);
    await sut.open({ id: ids[1], userId: alice, initialize }, at(11), 2);
    await sut.touch(ids[0], at(12));

    const ended = await sut.open({ id: ids[2], userId: alice, initialize }, at(13), 2);

    // ids[1] was used before ids[0]'s touch: the least recently used goes.
    expect(ended).toEqual([ids[1]]);
    expect(await sut.find(ids[0], alice, t0)).not.toBeNull();
    expect(await sut.find(ids[2], alice, t0)).not.toBeNull();
    expect(await sut.find(bobs, bob, t0)).not.toBeNull();
  });

  it('adds and removes subscriptions once each, and says when the session is gone', async () => {
    const id = randomUUID();
    await sut.open({ id, userId: bob, initialize }, at(20), 10);
    expect(await sut.changeSubscription(id, 'bridle://tasks', true)).toEqual(['bridle://tasks']);
    expect(await sut.changeSubscription(id, 'bridle://tasks', true)).toEqual(['bridle://tasks']);
    expect(await sut.changeSubscription(id, 'bridle://tasks/1', true)).toEqual(['bridle://tasks', 'bridle://tasks/1']);
    expect(await sut.changeSubscription(id, 'bridle://tasks', false)).toEqual(['bridle://tasks/1']);
    expect((await sut.find(id, bob, t0))?.subscriptions).toEqual(['bridle://tasks/1']);

    expect(await sut.close(id, alice)).toBe(false);
    expect(await sut.close(id, bob)).toBe(true);
    expect(await sut.changeSubscription(id, 'bridle://tasks', true)).toBeNull();
    expect(await sut.close(id, bob)).toBe(false);
  });

  it('ends idle sessions oldest first, a batch at a time', async () => {
    const kept = randomUUID();
    await sut.open({ id: kept, userId: bob, initialize }, at(40), 10);
    const idle = await db.database.query<{ id: string }[]>(`SELECT id FROM mcp_sessions WHERE last_seen_at < $1 ORDER BY last_seen_at`, [
      at(40),
    ]);
    expect(idle.length).toBeGreaterThan(1);

    expect(await sut.closeIdle(at(40), 1)).toEqual([idle[0].id]);
    expect((await sut.closeIdle(at(40), 100)).sort()).toEqual(
      idle
        .slice(1)
        .map((row) => row.id)
        .sort(),
    );
    expect(await sut.closeIdle(at(40), 100)).toEqual([]);
    expect(await sut.find(kept, bob, t0)).not.toBeNull();
  });

  it('names one holder of a session’s event stream, the newest claim, each claim numbered higher', async () => {
    const id = randomUUID();
    const other = randomUUID();
    await sut.open({ id, userId: alice, initialize }, at(50), 10);
    await sut.open({ id: other, userId: alice, initialize }, at(50), 10);
    expect(await sut.streamHolders([id, other])).toEqual(
      new Map([
        [id, null],
        [other, null],
      ]),
    );

    const first = await sut.claimStream(id, 'aaaaaaaa.1');
    const second = await sut.claimStream(id, 'bbbbbbbb.1');
    expect(first).toEqual(expect.any(Number));
    expect(second).toBeGreaterThan(first!);
    expect(await sut.streamHolders([id, other, 'gone'])).toEqual(
      new Map([
        [id, 'bbbbbbbb.1'],
        [other, null],
      ]),
    );

    await sut.close(id, alice);
    expect(await sut.claimStream(id, 'aaaaaaaa.2')).toBeNull();
    expect(await sut.streamHolders([id])).toEqual(new Map());
  });

  it('keeps of the client’s info only its name, version and title, each bounded', async () => {
    const id = randomUUID();
    const clientInfo = { name: 'n'.repeat(5_000), version: '1.0', title: 'T', icons: [{ src: `data:,${'i'.repeat(5_000)}` }] };
    await sut.open({ id, userId: alice, initialize: { ...initialize, clientInfo } }, at(60), 10);
    const stored = await sut.find(id, alice, at(59));
    expect(stored?.initialize.clientInfo).toEqual({ name: `${'n'.repeat(105)}[… 4895 characters cut]`, version: '1.0', title: 'T' });
    expect(stored?.initialize.capabilities).toEqual(initialize.capabilities);
  });
});
