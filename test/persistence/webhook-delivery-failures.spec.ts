import { z } from 'zod';
import { PostgresWebhookOutbox } from '../../src/infrastructure/persistence/repositories/postgres-webhook-outbox';
import { selectRows, sql } from '../../src/infrastructure/persistence/sql';
import { WebhookSecretBox } from '../../src/infrastructure/security/webhook-secret-box';
import { FixedClock } from '../fakes/fixed-clock';
import { addUser } from '../factories/users';
import { useOpenDatabase } from '../support/persistence';
import { TEST_JWT_SECRET } from '../support/test-app';
import { usingPostgresServer } from '../support/test-database';
import { tagsOf, webhookRig } from '../support/webhook-delivery';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const NAMES = ['failing.example', 'gone.example', 'admins.example', 'everyone.example'];
/** A retry every second, for three seconds: the schedule's shape at a scale a test can walk. */
const RETRY = { delaysMs: [1_000], windowMs: 3_000 };

/**
 * What happens when a receiver fails: retries on the schedule, the message failed and the
 * endpoint disabled when its window closes, the owner told in the outbox; 410 Gone disables at
 * once. And who a deployment endpoint hears from.
 */
describe(`webhook delivery failures on ${usingPostgresServer ? 'PostgreSQL' : 'PGlite'}`, () => {
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

  const notices = (recipientId: string | null) =>
    selectRows(
      db.database,
      sql`SELECT event, subject, facts FROM notifications
          WHERE recipient_id IS NOT DISTINCT FROM ${recipientId} AND event = 'webhook.disabled' ORDER BY seq`,
      z.object({ event: z.string(), subject: z.unknown(), facts: z.record(z.string(), z.unknown()) }),
    );

  it('retries a failing message on the schedule, then marks it failed, disables the endpoint and tells its owner', async () => {
    const owner = await addUser(db.database);
    const { endpoint, secret } = await rig.register({ kind: 'person', userId: owner.id }, receiver.url('failing.example'));
    receiver.answer('failing.example', '/hook', { status: 503 });
    const first = await rig.notify(owner.id);
    const second = await rig.notify(owner.id);
    // Time stands still but where the test moves it, near the real time the receiver's verify checks.
    const clock = new FixedClock(new Date());
    const deliverer = rig.deliverer(clock, { retry: RETRY });

    await deliverer.poll();
    clock.advance(999);
    expect(await deliverer.poll()).toBe(0); // not due before its next attempt
    clock.advance(1);
    expect(await deliverer.poll()).toBe(1);
    for (let i = 0; i < 2; i++) {
      clock.advance(1_000);
      expect(await deliverer.poll()).toBe(1);
    }

    expect(tagsOf(receiver.received('failing.example'))).toEqual([first, first, first, first]);
    const log = (await rig.endpoints.deliveries({ kind: 'person', userId: owner.id }, endpoint.id, { limit: 10, cursor: null }))!;
    expect(log.items.map(({ attempt, outcome, status, failure }) => ({ attempt, outcome, status, failure }))).toEqual([
      { attempt: 4, outcome: 'failed', status: 503, failure: null },
      { attempt: 3, outcome: 'retrying', status: 503, failure: null },
      { attempt: 2, outcome: 'retrying', status: 503, failure: null },
      { attempt: 1, outcome: 'retrying', status: 503, failure: null },
    ]);
    expect(new Set(log.items.map((item) => item.messageId)).size).toBe(1);
    expect(await rig.endpoints.find({ kind: 'person', userId: owner.id }, endpoint.id)).toMatchObject({
      enabled: false,
      disabledReason: 'failing',
    });
    expect(await notices(owner.id)).toEqual([
      {
        event: 'webhook.disabled',
        subject: { kind: 'webhook', id: endpoint.id },
        facts: { reason: 'failing', host: receiver.url('failing.example').split('/')[2], messageId: log.items[0].messageId },
      },
    ]);
    expect(deliverer.logger.lines).toContainEqual(
      expect.objectContaining({ level: 'warn', line: expect.objectContaining({ reason: 'failing' }) }),
    );

    // Enabled again, it goes on with the message after the failed one (and the notice, which is its owner's too).
    receiver.answer('failing.example', '/hook', { status: 200 });
    clock.advance(10_000);
    await rig.endpoints.update({ kind: 'person', userId: owner.id }, endpoint.id, { enabled: true }, clock.now());
    while ((await deliverer.poll()) > 0);
    expect(tagsOf(receiver.accepted('failing.example'))).toEqual([second, endpoint.id]);
    receiver.verifyAll('failing.example', secret);
  });

  it('disables an endpoint that answers 410 Gone at once, and delivers the same message when it is enabled again', async () => {
    const owner = await addUser(db.database);
    const { endpoint } = await rig.register({ kind: 'person', userId: owner.id }, receiver.url('gone.example'));
    receiver.answer('gone.example', '/hook', { status: 410 });
    const tag = await rig.notify(owner.id);
    const clock = new FixedClock(new Date());
    const deliverer = rig.deliverer(clock, { retry: RETRY });

    await deliverer.poll();
    expect(await rig.endpoints.find({ kind: 'person', userId: owner.id }, endpoint.id)).toMatchObject({
      enabled: false,
      disabledReason: 'gone',
    });
    expect((await notices(owner.id)).map((notice) => notice.facts.reason)).toEqual(['gone']);

    receiver.answer('gone.example', '/hook', { status: 204 });
    await rig.endpoints.update({ kind: 'person', userId: owner.id }, endpoint.id, { enabled: true }, clock.now());
    while ((await deliverer.poll()) > 0);
    const received = receiver.received('gone.example');
    expect(tagsOf(received).slice(0, 2)).toEqual([tag, tag]);
    expect(received[0].id).toBe(received[1].id);
  });

  it("gives a deployment endpoint the admins' notifications, and every person's only when it takes them all", async () => {
    const [admin, person] = [await addUser(db.database, { role: 'admin' }), await addUser(db.database)];
    await rig.register({ kind: 'deployment' }, receiver.url('admins.example'), { createdBy: admin.id });
    await rig.register({ kind: 'deployment' }, receiver.url('everyone.example'), { createdBy: admin.id, allPeople: true });
    const forAdmins = await rig.notify(null, 'policy.stored');
    const forPerson = await rig.notify(person.id);
    const deliverer = rig.deliverer(new FixedClock(new Date()));

    while ((await deliverer.poll()) > 0);

    expect(tagsOf(receiver.accepted('admins.example'))).toEqual([forAdmins]);
    expect(tagsOf(receiver.accepted('everyone.example'))).toEqual([forAdmins, forPerson]);
    expect(receiver.accepted('everyone.example')[1].data).toMatchObject({ recipientId: person.id });
  });

  it('prunes the delivery log by age and past the newest rows of each endpoint', async () => {
    const owner = await addUser(db.database);
    const { endpoint } = await rig.register({ kind: 'person', userId: owner.id }, receiver.url('admins.example', '/prune'));
    const insert = (at: Date) =>
      db.database.query(
        `INSERT INTO webhook_deliveries (endpoint_id, message_id, event, attempt, attempted_at, duration_ms, outcome)
         VALUES ($1, 'msg_x', 'draft.expired', 1, $2, 5, 'delivered')`,
        [endpoint.id, at],
      );
    const now = Date.now();
    await insert(new Date(now - 40 * 86_400_000));
    for (let i = 5; i > 0; i--) await insert(new Date(now - i * 1_000));

    const pruned = await new PostgresWebhookOutbox(db.database, WebhookSecretBox.derive(TEST_JWT_SECRET)).prune(
      new Date(now - 30 * 86_400_000),
      3,
    );

    expect(pruned).toBeGreaterThanOrEqual(3);
    const left = (await rig.endpoints.deliveries({ kind: 'person', userId: owner.id }, endpoint.id, { limit: 10, cursor: null }))!;
    expect(left.items.map((item) => item.attemptedAt.getTime())).toEqual([now - 1_000, now - 2_000, now - 3_000]);
  });
});
