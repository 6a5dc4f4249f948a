import { Client } from 'pg';
import { enqueueNotification } from '../../src/infrastructure/persistence/tables/notifications';
import { PostgresWebhookOutbox } from '../../src/infrastructure/persistence/repositories/postgres-webhook-outbox';
import { WebhookSecretBox } from '../../src/infrastructure/security/webhook-secret-box';
import { SystemClock } from '../../src/infrastructure/system-clock';
import { addUser } from '../factories/users';
import { useOpenDatabase } from '../support/persistence';
import { countStatements } from '../support/statement-counter';
import { TEST_JWT_SECRET } from '../support/test-app';
import { usingPostgresServer } from '../support/test-database';
import { tagsOf, webhookRig } from '../support/webhook-delivery';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const NAMES = ['one.example', 'two.example', 'three.example'];
const clock = new SystemClock();
/** Each answer waits for the next turn of the event loop, so that two deliverers' requests overlap when they can. */
const brief = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The webhook outbox's order and claims on a real database: each endpoint gets its messages
 * one at a time, in order, once, whoever delivers them; a message written by a transaction
 * that commits late is never passed over.
 */
describe(`webhook delivery order and claims on ${usingPostgresServer ? 'PostgreSQL' : 'PGlite'}`, () => {
  let receiver: WebhookReceiver;
  const db = useOpenDatabase({ beforeClose: () => receiver?.close() });
  const rig = webhookRig(
    () => db.database,
    () => receiver,
    new Set(NAMES),
  );
  beforeAll(async () => {
    receiver = await startWebhookReceiver(NAMES);
  });

  it('two deliverers at once give each endpoint each message once, in order, one request at a time', async () => {
    const [alice, bob] = [await addUser(db.database), await addUser(db.database)];
    await rig.register({ kind: 'person', userId: alice.id }, receiver.url('one.example', '/a'));
    await rig.register({ kind: 'person', userId: alice.id }, receiver.url('two.example', '/a'));
    await rig.register({ kind: 'person', userId: bob.id }, receiver.url('three.example', '/b'));
    for (const [name, path] of [
      ['one.example', '/a'],
      ['two.example', '/a'],
      ['three.example', '/b'],
    ]) {
      receiver.answer(name, path, { status: 200, hold: brief });
    }
    const aliceTags: string[] = [];
    const bobTags: string[] = [];
    for (let i = 0; i < 12; i++) {
      aliceTags.push(await rig.notify(alice.id));
      if (i % 2 === 0) bobTags.push(await rig.notify(bob.id));
    }
    const [first, second] = [rig.deliverer(clock, { concurrency: 2 }), rig.deliverer(clock, { concurrency: 2 })];

    for (let round = 0; round < 50 && receiver.received('three.example', '/b').length < bobTags.length; round++) {
      await Promise.all([first.poll(), second.poll()]);
    }
    for (let round = 0; round < 50; round++) {
      if ((await Promise.all([first.poll(), second.poll()])).every((claimed) => claimed === 0)) break;
    }

    expect(tagsOf(receiver.received('one.example', '/a'))).toEqual(aliceTags);
    expect(tagsOf(receiver.received('two.example', '/a'))).toEqual(aliceTags);
    expect(tagsOf(receiver.received('three.example', '/b'))).toEqual(bobTags);
    for (const [name, path] of [
      ['one.example', '/a'],
      ['two.example', '/a'],
      ['three.example', '/b'],
    ]) {
      expect(receiver.fixture.maxOpen(name, path)).toBe(1);
    }
  });

  it('leases an endpoint to one claim at a time, and to another once the lease has run out', async () => {
    const carol = await addUser(db.database);
    const registered = await rig.register({ kind: 'person', userId: carol.id }, receiver.url('one.example', '/c'));
    await rig.notify(carol.id);
    const other = new PostgresWebhookOutbox(db.database, WebhookSecretBox.derive(TEST_JWT_SECRET));
    const now = new Date();

    const claims = await Promise.all([rig.outbox.claim(10, 60_000, now), other.claim(10, 60_000, now)]);
    const holders = claims.filter((claimed) => claimed.some((endpoint) => endpoint.id === registered.endpoint.id));

    expect(holders).toHaveLength(1);
    expect(await rig.outbox.claim(10, 60_000, new Date(now.getTime() + 59_000))).toEqual([]);
    // The holder died without a word: after its lease, another deliverer takes the endpoint, its message still waiting.
    const later = await other.claim(10, 60_000, new Date(now.getTime() + 60_000));
    expect(later.map((endpoint) => endpoint.id)).toEqual([registered.endpoint.id]);
    expect((await other.head(later[0]))?.facts).toMatchObject({ tag: expect.any(String) });
    await other.release(later[0]);
  });

  it('costs one statement a poll when no message waits', async () => {
    const dave = await addUser(db.database);
    await rig.register({ kind: 'person', userId: dave.id }, receiver.url('two.example', '/d'));
    await rig.notify(dave.id);
    const deliverer = rig.deliverer(clock);
    while ((await deliverer.poll()) > 0);
    expect(receiver.received('two.example', '/d')).toHaveLength(1);

    const counter = countStatements();
    try {
      expect(await deliverer.poll()).toBe(0);
    } finally {
      counter.stop();
    }

    expect(counter.statements).toHaveLength(1);
    expect(counter.statements[0]).toMatch(/^UPDATE webhook_endpoints/);
  });

  (usingPostgresServer ? it : it.skip)('holds a message back while an older transaction may still commit one before it', async () => {
    const erin = await addUser(db.database);
    await rig.register({ kind: 'person', userId: erin.id }, receiver.url('three.example', '/e'));
    const deliverer = rig.deliverer(clock);
    const slow = db.database.createQueryRunner();
    await slow.connect();
    await slow.startTransaction();
    try {
      // The slow transaction writes first, the fast one after it and commits at once.
      await enqueueNotification(slow.manager, {
        recipientId: erin.id,
        event: 'draft.expired',
        subject: { kind: 'draft', id: 'slow' },
        facts: {},
        at: new Date(),
      });
      const fast = await rig.notify(erin.id);

      await deliverer.poll();
      expect(receiver.received('three.example', '/e')).toEqual([]);

      await slow.commitTransaction();
      while ((await deliverer.poll()) > 0);
      expect(tagsOf(receiver.received('three.example', '/e'))).toEqual(['slow', fast]);
    } finally {
      await slow.release();
    }
  });

  (usingPostgresServer ? it : it.skip)('is not held back by a transaction open in another database of the server', async () => {
    const frank = await addUser(db.database);
    await rig.register({ kind: 'person', userId: frank.id }, receiver.url('one.example', '/f'));
    const deliverer = rig.deliverer(clock);
    const neighbour = new Client({ connectionString: process.env.TEST_POSTGRES_URL });
    await neighbour.connect();
    try {
      await neighbour.query('BEGIN');
      await neighbour.query('SELECT pg_current_xact_id()');
      const tag = await rig.notify(frank.id);

      while ((await deliverer.poll()) > 0);

      expect(tagsOf(receiver.received('one.example', '/f'))).toEqual([tag]);
    } finally {
      await neighbour.query('ROLLBACK');
      await neighbour.end();
    }
  });
});
