import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import {
  callService,
  ROOT,
  type RunningService,
  signUpOnService,
  spawnService,
  startService,
  useBuiltService,
} from '../support/built-service';
import { leads } from '../support/outreach';
import { usingPostgresServer, useTestDatabase } from '../support/test-database';
import { startWebhookReceiver, until, type WebhookReceiver } from '../support/webhook-receiver';

const OUT_DIR = join(ROOT, 'dist-test-webhooks');
const MAIN = join(OUT_DIR, 'main.js');
const WORKER = join(OUT_DIR, 'worker.js');
const NAMES = ['alice.test', 'bob.test', 'crash.test'];
const PASSWORD = 'long enough for a test';

interface Person {
  readonly userId: string;
  readonly token: string;
}

const describeOnPostgres = usingPostgresServer ? describe : describe.skip;

/**
 * Webhooks from the built service, as it ships, on a PostgreSQL server: replicas that each
 * deliver, a receiver that is down for a while and then up, and a replica killed after it sent
 * a message but before it recorded the answer. The receivers' names resolve to 127.0.0.1 in the
 * services (test/support/test-hosts.cjs), their certificate is trusted (NODE_EXTRA_CA_CERTS),
 * and OUTBOUND_PRIVATE_HOSTS allows them there. Retries and leases are scaled to seconds.
 */
describeOnPostgres('webhooks across replicas of the built service', () => {
  let receiver: WebhookReceiver;
  let caDir: string;
  const replicas: RunningService[] = [];
  const workers: Omit<RunningService, 'baseUrl'>[] = [];
  const db = useTestDatabase({
    beforeDispose: async () => {
      for (const running of [...replicas, ...workers]) running.child.kill('SIGKILL');
      await Promise.all([...replicas, ...workers].map((running) => running.exited));
      await receiver?.close();
      if (caDir) await rm(caDir, { recursive: true, force: true });
    },
  });
  useBuiltService(OUT_DIR);

  const environment = (): Record<string, string> => {
    if (db.settings.kind !== 'server') throw new Error('needs a PostgreSQL server');
    return {
      DATABASE_URL: db.settings.url,
      JWT_SECRET: 'a secret every replica of this test shares, 32+',
      API_RATE_LIMIT_PER_MINUTE: '100000',
      AUTH_RATE_LIMIT_PER_MINUTE: '100000',
      OUTBOUND_PRIVATE_HOSTS: NAMES.join(','),
      WEBHOOK_POLL_MS: '200',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_DELAYS_MS: '300',
      WEBHOOK_RETRY_WINDOW_MS: '600000',
      NODE_EXTRA_CA_CERTS: join(caDir, 'ca.pem'),
      NODE_OPTIONS: `--require ${join(ROOT, 'test', 'support', 'test-hosts.cjs')}`,
      BRIDLE_TEST_HOSTS: NAMES.join(','),
    };
  };
  const startReplica = async () => {
    const replica = await startService(MAIN, environment(), 120_000);
    replicas.push(replica);
    return replica;
  };
  /** A worker process (`node dist/worker.js`): no HTTP, and it delivers webhooks too. */
  const startWorker = () => {
    const worker = spawnService(WORKER, environment());
    workers.push(worker);
    return worker;
  };
  const live = () => replicas.filter((replica) => replica.child.exitCode === null && replica.child.signalCode === null);
  /** Each request to the next live replica in turn. */
  let turn = 0;
  const call = <T>(method: string, path: string, person?: Person, body?: unknown) => {
    const running = live();
    return callService<T>(running[turn++ % running.length], method, path, body, person?.token);
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver(NAMES);
    caDir = await mkdtemp(join(tmpdir(), 'webhooks-ca-'));
    await writeFile(join(caDir, 'ca.pem'), receiver.fixture.ca);
    await startReplica();
    await startReplica();
  }, 300_000);

  async function signUp(email: string): Promise<Person> {
    const { accessToken, userId } = await signUpOnService(live()[0], { email, password: PASSWORD });
    return { userId, token: accessToken };
  }

  async function register(person: Person, name: string): Promise<string> {
    const created = await call<{ secret: string }>('POST', `/api/${person.userId}/webhooks`, person, { url: receiver.url(name) });
    expect(created.status).toBe(201);
    return created.body.secret;
  }

  /** Holds one draft for `person` on whichever replica's turn it is. @returns the draft's id */
  async function heldDraft(person: Person, tag: string): Promise<string> {
    const base = `/api/${person.userId}/campaigns`;
    const { body: campaign } = await call<{ id: string }>('POST', base, person, { name: tag, approvalMode: 'all' });
    expect((await call('POST', `${base}/${campaign.id}/leads`, person, { leads: leads(1, tag) })).status).toBe(201);
    expect((await call('POST', `${base}/${campaign.id}/start`, person)).status).toBe(200);
    const cycle = await call<{ status: string }>('POST', `${base}/${campaign.id}/cycles`, person);
    expect(cycle.body.status).toBe('awaiting_review');
    const { body } = await call<{ items: { id: string; campaign: { id: string } }[] }>(
      'GET',
      `/api/${person.userId}/outreach/drafts?status=awaiting_review&limit=100`,
      person,
    );
    return body.items.find((draft) => draft.campaign.id === campaign.id)!.id;
  }

  const draftsOf = (name: string) => receiver.accepted(name).map((webhook) => (webhook.data.subject as { id: string }).id);

  let alice: Person;
  let bob: Person;
  let aliceSecret: string;
  const aliceDrafts: string[] = [];
  const bobDrafts: string[] = [];

  it('delivers a held draft within 5 s, signed so the standardwebhooks package verifies it', async () => {
    alice = await signUp('alice@example.com');
    aliceSecret = await register(alice, 'alice.test');

    aliceDrafts.push(await heldDraft(alice, 'alice-0'));

    await until('the draft reaches alice.test', () => receiver.accepted('alice.test').length === 1, 5_000);
    const [delivered] = receiver.accepted('alice.test');
    const event = new Webhook(aliceSecret).verify(delivered.body, {
      'webhook-id': delivered.id,
      'webhook-timestamp': delivered.timestamp,
      'webhook-signature': delivered.signature,
    });
    expect(event).toMatchObject({ type: 'draft.awaiting_review', data: { subject: { kind: 'draft', id: aliceDrafts[0] } } });
  });

  it('retries while the receiver is down, then delivers each event once by webhook-id, in order per person', async () => {
    bob = await signUp('bob@example.com');
    await register(bob, 'bob.test');
    receiver.answer('alice.test', '/hook', { status: 503 });
    receiver.answer('bob.test', '/hook', { status: 503 });
    for (let i = 1; i <= 3; i++) {
      aliceDrafts.push(await heldDraft(alice, `alice-${i}`));
      bobDrafts.push(await heldDraft(bob, `bob-${i}`));
    }
    const failed = (name: string) => receiver.received(name).length - receiver.accepted(name).length;
    await until(
      'each receiver has refused its first message three times',
      () => failed('alice.test') >= 3 && failed('bob.test') >= 3,
      30_000,
    );

    receiver.answer('alice.test', '/hook', { status: 200 });
    receiver.answer('bob.test', '/hook', { status: 204 });
    await until('every draft is delivered', () => draftsOf('alice.test').length >= 4 && draftsOf('bob.test').length >= 3, 30_000);

    expect(draftsOf('alice.test')).toEqual(aliceDrafts);
    expect(draftsOf('bob.test')).toEqual(bobDrafts);
    for (const name of ['alice.test', 'bob.test']) {
      const accepted = receiver.accepted(name).map((webhook) => webhook.id);
      expect(new Set(accepted).size).toBe(accepted.length);
      // Every refused attempt carried the id of a message that was then accepted: the same webhook-id on each retry.
      expect(new Set(receiver.received(name).map((webhook) => webhook.id))).toEqual(new Set(accepted));
    }
    receiver.verifyAll('alice.test', aliceSecret);
  });

  it('loses nothing when a replica dies after sending a message and before recording it: a worker sends it again, same webhook-id', async () => {
    const carol = await signUp('carol@example.com');
    const carolSecret = await register(carol, 'crash.test');
    // One replica left delivering: the one that will be killed with the message in flight.
    const [idle, sender] = live();
    idle.child.kill('SIGKILL');
    await idle.exited;
    receiver.answer('crash.test', '/hook', { status: 200, hold: () => new Promise(() => undefined) });
    const first = await heldDraft(carol, 'carol-1');
    await until('the message reaches crash.test', () => receiver.received('crash.test').length === 1, 10_000);

    sender.child.kill('SIGKILL');
    await sender.exited;
    receiver.answer('crash.test', '/hook', { status: 200 });
    // Only a worker is left: once the dead replica's lease has run out, it sends the message again.
    const worker = startWorker();
    await until('the worker delivers it', () => receiver.accepted('crash.test').length === 1, 60_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${worker.output().slice(-3000)}`);
    });
    await startReplica();
    const second = await heldDraft(carol, 'carol-2');
    await until('both messages are accepted', () => receiver.accepted('crash.test').length >= 2, 60_000);

    const received = receiver.received('crash.test');
    expect(received[0].id).toBe(received[1].id);
    expect(receiver.deduplicated('crash.test')).toHaveLength(2);
    expect(receiver.accepted('crash.test').map((webhook) => (webhook.data.subject as { id: string }).id)).toEqual([first, second]);
    receiver.verifyAll('crash.test', carolSecret);
  });
});
