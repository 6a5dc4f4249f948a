import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { ChangePolicyUseCase } from '../../src/application/policy/change-policy.use-case';
import { PolicyBasis } from '../../src/application/policy/policy-provider';
import { type PolicyStore } from '../../src/application/policy/ports/policy-store.port';
import { StoredPolicy } from '../../src/application/policy/stored-policy';
import type { FleetBus } from '../../src/application/shared/ports/fleet-bus.port';
import { TODO_TOOLS } from '../../src/application/todo/tools/todo-tool-definitions';
import { defaultPolicy, policyCatalogue } from '../../src/domain/policy/default-policy';
import type { PolicyDocument } from '../../src/domain/policy/policy';
import { InvalidCursorError } from '../../src/domain/shared/pagination';
import { InProcessFleetBus } from '../../src/infrastructure/events/in-process-fleet-bus';
import { PostgresFleetBus } from '../../src/infrastructure/events/postgres-fleet-bus';
import { openDatabase } from '../../src/infrastructure/persistence/database';
import { DatabasePolicyAccounts } from '../../src/infrastructure/persistence/repositories/database-policy-accounts';
import { PostgresPolicyStore } from '../../src/infrastructure/persistence/repositories/postgres-policy-store';
import { PostgresUserRepository } from '../../src/infrastructure/persistence/repositories/postgres-user.repository';
import { SystemClock } from '../../src/infrastructure/system-clock';
import { RecordingAuditLog } from '../fakes/recording-audit-log';
import { RecordingLogger } from '../fakes/recording-logger';
import { usingPostgresServer, useTestDatabase } from '../support/test-database';
import { undoMigrationsDownTo, useOpenDatabase } from '../support/persistence';

const describeOnPostgres = usingPostgresServer ? describe : describe.skip;

const catalogue = policyCatalogue(TODO_TOOLS);
const basis = new PolicyBasis(catalogue, defaultPolicy(catalogue, 'confirm-in-chat'));

const NO_DELETES: PolicyDocument = { rules: [{ name: 'no-deletes', tools: ['delete_task'], effect: 'deny', reason: 'Not this week.' }] };

/** A call of `tool` by `userId` over MCP, as the policy is asked about it. */
function mcpCall(tool: string, userId: string = randomUUID()) {
  return { tool, source: 'mcp' as const, userId, targets: { items: 1, recipient: null }, at: new Date() };
}

/** Polls until `condition` holds; the deadline only stops a test that would hang (no test asserts a time). */
async function eventually(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function replica(dataSource: DataSource, bus: FleetBus, logger = new RecordingLogger()) {
  const store = new PostgresPolicyStore(dataSource);
  const accounts = new DatabasePolicyAccounts(dataSource);
  const policy = new StoredPolicy(basis, store, bus, logger);
  const auditLog = new RecordingAuditLog();
  const change = new ChangePolicyUseCase(basis, store, accounts, policy, bus, auditLog, new SystemClock(), logger);
  return { store, policy, change, auditLog, logger };
}

describe('PostgresPolicyStore', () => {
  const db = useOpenDatabase();
  let store: PolicyStore;
  const author = { authorId: randomUUID(), authorEmail: 'admin@example.com' };

  beforeAll(() => {
    store = new PostgresPolicyStore(db.database);
  });

  it('holds no version until one is stored: the built-in policy is version 0', async () => {
    expect(await store.latest()).toBeNull();
    expect(await store.latestVersion()).toBe(0);
    expect(await store.list(10, null)).toEqual({ items: [], nextCursor: null });
  });

  it('numbers versions 1, 2, … and reads each back as it was stored', async () => {
    const first = await store.save({ document: NO_DELETES, people: {}, reason: 'first', ...author });
    expect(first).toEqual({
      version: 1,
      document: NO_DELETES,
      people: {},
      reason: 'first',
      ...author,
      createdAt: expect.any(Date) as Date,
    });
    const second = await store.save({ document: { rules: [] }, people: {}, reason: 'second', ...author });
    expect(second.version).toBe(2);
    expect(await store.latest()).toEqual(second);
    expect(await store.latestVersion()).toBe(2);
    expect(await store.version(1)).toEqual(first);
    expect(await store.version(3)).toBeNull();
  });

  it('gives racing saves each their own number, none lost or skipped', async () => {
    const before = await store.latestVersion();
    const saved = await Promise.all(
      Array.from({ length: 12 }, (_, i) => store.save({ document: NO_DELETES, people: {}, reason: `race ${i}`, ...author })),
    );
    const numbers = saved.map((version) => version.version).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 12 }, (_, i) => before + 1 + i));
    // Each number holds the save that got it.
    for (const version of saved) expect((await store.version(version.version))?.reason).toBe(version.reason);
  });

  it('lists summaries newest first, a page at a time', async () => {
    const latest = await store.latestVersion();
    const first = await store.list(5, null);
    expect(first.items.map((item) => item.version)).toEqual([latest, latest - 1, latest - 2, latest - 3, latest - 4]);
    expect(first.items[0]).toEqual({
      version: latest,
      rules: 1,
      reason: expect.any(String) as string,
      ...author,
      createdAt: expect.any(Date) as Date,
    });
    const versions: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await store.list(5, cursor);
      versions.push(...page.items.map((item) => item.version));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(versions).toEqual(Array.from({ length: latest }, (_, i) => latest - i));
    await expect(store.list(5, 'not-a-cursor')).rejects.toBeInstanceOf(InvalidCursorError);
    await expect(store.list(5, Buffer.from('"1"').toString('base64url'))).rejects.toBeInstanceOf(InvalidCursorError);
  });

  it('never changes or deletes a stored version, and refuses a reason the table does not take', async () => {
    await expect(db.database.query(`UPDATE policy_versions SET reason = 'rewritten' WHERE version = 1`)).rejects.toThrow(/append-only/);
    await expect(db.database.query(`DELETE FROM policy_versions WHERE version = 1`)).rejects.toThrow(/append-only/);
    await expect(store.save({ document: NO_DELETES, people: {}, reason: '', ...author })).rejects.toThrow();
    expect((await store.version(1))?.reason).toBe('first');
  });
});

describe('StoredPolicy', () => {
  const db = useOpenDatabase();

  it('is the built-in policy with no version stored, then each version stored, compiled once', async () => {
    const bus = new InProcessFleetBus();
    const one = replica(db.database, bus);
    await one.policy.start();
    try {
      expect(one.policy.current().version).toBe(0);
      expect(one.policy.current().document).toBe(basis.builtIn);
      expect(one.policy.current().evaluate(mcpCall('delete_task')).effect).toBe('ask-person');

      const builtIn = one.policy.current();
      await one.policy.refresh();
      expect(one.policy.current()).toBe(builtIn);

      const stored = await one.change.execute({
        adminId: randomUUID(),
        adminEmail: 'a@example.com',
        rules: NO_DELETES.rules,
        reason: 'why',
      });
      expect(stored.version).toBe(1);
      // In force here before the change answers, and the same compiled policy however often it is asked for.
      const compiled = one.policy.current();
      expect(compiled.version).toBe(1);
      expect(compiled.evaluate(mcpCall('delete_task'))).toMatchObject({ effect: 'deny', rule: 'no-deletes', version: 1 });
      await Promise.all([one.policy.refresh(), one.policy.refresh()]);
      expect(one.policy.current()).toBe(compiled);
      expect(one.auditLog.rows.map((row) => [row.status, row.entry.tool])).toEqual([
        ['pending', 'change_policy'],
        ['succeeded', 'change_policy'],
      ]);
    } finally {
      one.policy.stop();
    }
  });

  it('compiles the emails its rules name to the accounts they are, and refuses a policy naming a stranger', async () => {
    const user = await new PostgresUserRepository(db.database).create({
      email: `pat-${randomUUID()}@example.com`,
      passwordHash: 'x',
      role: 'user',
    });
    const one = replica(db.database, new InProcessFleetBus());
    await one.policy.start();
    try {
      const rules = [{ name: 'pat-adds-nothing', tools: ['add_task'], people: [user.email.toUpperCase()], effect: 'deny', reason: 'No.' }];
      await one.change.execute({ adminId: randomUUID(), adminEmail: 'a@example.com', rules, reason: 'pat' });
      expect(one.policy.current().evaluate(mcpCall('add_task', user.id))).toMatchObject({ effect: 'deny', rule: 'pat-adds-nothing' });
      expect(one.policy.current().evaluate(mcpCall('add_task'))).toMatchObject({ effect: 'allow' });

      const before = one.policy.current().version;
      await expect(
        one.change.execute({
          adminId: randomUUID(),
          adminEmail: 'a@example.com',
          rules: [{ name: 'stranger', tools: ['add_task'], people: ['nobody@example.com'], effect: 'allow' }],
          reason: 'who?',
        }),
      ).rejects.toMatchObject({ code: 'POLICY.INVALID', problems: [expect.objectContaining({ field: 'rules[1].people[0]' })] });
      expect(await new PostgresPolicyStore(db.database).latestVersion()).toBe(before);
    } finally {
      one.policy.stop();
    }
  });

  it('stores the accounts its emails are with the version, and every process that starts later reads them so', async () => {
    const users = new PostgresUserRepository(db.database);
    const email = `quinn-${randomUUID()}@example.com`;
    const quinn = await users.create({ email, passwordHash: 'x', role: 'user' });
    const one = replica(db.database, new InProcessFleetBus());
    await one.policy.start();
    try {
      const rules = [{ name: 'quinn-adds-nothing', tools: ['add_task'], people: [email], effect: 'deny', reason: 'No.' }];
      const stored = await one.change.execute({ adminId: randomUUID(), adminEmail: 'a@example.com', rules, reason: 'quinn' });
      expect(await one.store.version(stored.version)).toMatchObject({ document: { rules }, people: { [email]: quinn.id } });

      // The account goes and someone else registers the email: a process that starts now reads the version as the first does.
      await db.database.query(`DELETE FROM users WHERE id = $1`, [quinn.id]);
      const newcomer = await users.create({ email, passwordHash: 'x', role: 'user' });
      const later = replica(db.database, new InProcessFleetBus());
      await later.policy.start();
      try {
        for (const policy of [one.policy, later.policy]) {
          expect(policy.current().evaluate(mcpCall('add_task', quinn.id))).toMatchObject({ effect: 'deny' });
          expect(policy.current().evaluate(mcpCall('add_task', newcomer.id))).toMatchObject({ effect: 'allow' });
        }
      } finally {
        later.policy.stop();
      }
    } finally {
      one.policy.stop();
    }
  });
});

describe(`the PolicyPeople1767574800000 migration on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();

  it("resolves each earlier version's emails once, to the accounts they are then, and leaves versions append-only", async () => {
    await undoMigrationsDownTo(db.database, 'PolicyPeople1767574800000');
    const [ann] = await db.database.query<{ id: string }[]>(
      `INSERT INTO users (email, password_hash, role) VALUES ('ann@example.com', 'x', 'user') RETURNING id`,
    );
    const document = {
      rules: [
        { name: 'ann-and-gone', tools: ['add_task'], people: ['ann@example.com', 'gone@example.com'], effect: 'deny', reason: 'No.' },
        { name: 'by-id', tools: ['delete_task'], people: [ann.id], effect: 'deny', reason: 'No.' },
        { name: 'everyone', tools: ['complete_task'], effect: 'allow' },
      ],
    };
    for (const doc of [document, { rules: [] }]) {
      await db.database.query(
        `INSERT INTO policy_versions (version, document, author_id, author_email, reason)
         SELECT coalesce(max(version), 0) + 1, $1::jsonb, gen_random_uuid(), 'admin@example.com', 'before' FROM policy_versions`,
        [JSON.stringify(doc)],
      );
    }

    await db.database.runMigrations();

    const versions = await db.database.query<{ version: number; people: unknown }[]>(
      `SELECT version, people FROM policy_versions ORDER BY version`,
    );
    expect(versions).toEqual([
      { version: 1, people: { 'ann@example.com': ann.id } },
      { version: 2, people: {} },
    ]);
    await expect(db.database.query(`UPDATE policy_versions SET people = '{}'::jsonb`)).rejects.toThrow(/append-only/);
  });
});

// Two replicas on one PostgreSQL database: each its own DataSource, fleet bus (LISTEN connection) and StoredPolicy.
describeOnPostgres('StoredPolicy on two replicas', () => {
  const databases: DataSource[] = [];
  const buses: PostgresFleetBus[] = [];
  const testDb = useTestDatabase({
    beforeDispose: async () => {
      for (const bus of buses) await bus.close();
      for (const database of databases) await database.destroy();
    },
  });

  beforeAll(async () => {
    if (testDb.settings.kind !== 'server') throw new Error('needs a server');
    for (let i = 0; i < 2; i++) {
      const database = await openDatabase(testDb.settings);
      databases.push(database);
      buses.push(new PostgresFleetBus(testDb.settings.url, database));
    }
  });

  it('puts a version one replica stores in force on the other, by the bus alone', async () => {
    const [a, b] = [replica(databases[0], buses[0]), replica(databases[1], buses[1])];
    await Promise.all([a.policy.start(), b.policy.start()]);
    try {
      expect([a.policy.current().version, b.policy.current().version]).toEqual([0, 0]);
      // Wait for both LISTEN connections, so that the NOTIFY below has someone to reach.
      await eventuallyAsync(
        async () =>
          Number(
            (
              await databases[0].query<{ n: string }[]>(
                `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'bridle-fleet-bus' AND datname = current_database()`,
              )
            )[0].n,
          ) >= 2,
      );

      await a.change.execute({ adminId: randomUUID(), adminEmail: 'a@example.com', rules: NO_DELETES.rules, reason: 'on a' });
      expect(a.policy.current().version).toBe(1);
      // No timer runs here: only the bus's message can bring it to b.
      await eventually(() => b.policy.current().version === 1);
      expect(b.policy.current().evaluate(mcpCall('delete_task'))).toMatchObject({ effect: 'deny', rule: 'no-deletes' });

      // And back the other way.
      await b.change.execute({ adminId: randomUUID(), adminEmail: 'b@example.com', rules: [], reason: 'on b' });
      await eventually(() => a.policy.current().version === 2);
      expect(a.policy.current().evaluate(mcpCall('delete_task')).effect).toBe('allow');
    } finally {
      a.policy.stop();
      b.policy.stop();
    }
  });
});

async function eventuallyAsync(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
