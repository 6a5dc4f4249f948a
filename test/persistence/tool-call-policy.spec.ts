import { createHash } from 'node:crypto';
import type { ToolAuditEntry } from '../../src/application/audit/ports/audit-log.port';
import { SealAuditChainUseCase } from '../../src/application/audit/seal-audit-chain.use-case';
import type { PolicyLimit } from '../../src/domain/policy/policy';
import { DatabasePolicyAccounts } from '../../src/infrastructure/persistence/repositories/database-policy-accounts';
import { DatabasePolicyCounters } from '../../src/infrastructure/persistence/repositories/database-policy-counters';
import { PostgresAuditChainSealer } from '../../src/infrastructure/persistence/repositories/postgres-audit-chain-sealer';
import { PostgresAuditLog } from '../../src/infrastructure/persistence/repositories/postgres-audit-log';
import { PostgresAuditReader } from '../../src/infrastructure/persistence/repositories/postgres-audit-reader';
import { AuditAppender } from '../../src/infrastructure/persistence/tables/audit-log';
import { addUser } from '../factories/users';
/** The counters' row key, as DatabasePolicyCounters keeps it: a digest of the limit's key. */
const rowKey = (limit: PolicyLimit) => `policy:${createHash('sha256').update(limit.key).digest('hex')}`;
import { RecordingMetrics } from '../fakes/recording-metrics';
import { BROKEN_LINKS } from '../support/audit-chain';
import { usingPostgresServer } from '../support/test-database';
import { useOpenDatabase } from '../support/persistence';

/** What the policy leaves in the database: its verdict on each tool call's audit row, and its limits' counters. */
describe(`the policy's records on ${usingPostgresServer ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();
  let userId: string;

  beforeAll(async () => {
    userId = (await addUser(db.database, { email: 'policy-records@example.com', role: 'admin' })).id;
  });

  it("hashes a row's verdict with the row, and leaves a row without one as it was hashed before", async () => {
    const audit = new PostgresAuditLog(db.database, new AuditAppender(new RecordingMetrics()));
    const entry: ToolAuditEntry = { source: 'mcp', actorId: userId, tool: 'delete_task', arguments: { number: 1 }, securityEvents: [] };
    await audit.record(
      { ...entry, policy: { version: 3, rule: 'delete-cap', effect: 'limit' } },
      { status: 'rejected', errorCode: 'POLICY_LIMIT_REACHED', errorMessage: 'That limit is reached.', durationMs: 0 },
    );
    await audit.record(entry, { status: 'succeeded', durationMs: 1 });
    await new SealAuditChainUseCase(new PostgresAuditChainSealer(db.database)).run();

    const canonical = await db.database.query<{ text: string }[]>(`SELECT audit_row_canonical(a) AS text FROM audit_log a ORDER BY seq`);
    expect(JSON.parse(canonical[0].text)).toMatchObject({ policy: { version: 3, rule: 'delete-cap', effect: 'limit' } });
    expect(JSON.parse(canonical[1].text)).not.toHaveProperty('policy');
    expect(await db.database.query(BROKEN_LINKS)).toEqual([]);

    const page = await new PostgresAuditReader(db.database).list({}, 10, null);
    expect(page.items.map((row) => row.policy)).toEqual([null, { version: 3, rule: 'delete-cap', effect: 'limit' }]);
  });

  it('lets exactly the limit through when calls race from many connections, and counts only what ran', async () => {
    const counters = new DatabasePolicyCounters(db.database);
    const perPerson: PolicyLimit = {
      rule: 'delete-cap',
      position: 1,
      max: 20,
      window: 'day',
      windowMs: 86_400_000,
      key: `delete-cap:${userId}`,
    };
    const everyone: PolicyLimit = { rule: 'all-cap', position: 2, max: 1000, window: 'hour', windowMs: 3_600_000, key: 'all-cap:*' };
    const results = await Promise.all(Array.from({ length: 30 }, () => counters.take([everyone, perPerson])));
    expect(results.filter((result) => result === null)).toHaveLength(20);
    const refused = results.filter((result) => result !== null);
    expect(refused).toHaveLength(10);
    expect(refused[0]).toMatchObject({ limit: { rule: 'delete-cap' }, retryAfterSeconds: expect.any(Number) });
    expect(refused[0]?.retryAfterSeconds).toBeGreaterThan(86_000);
    const hits = await db.database.query<{ key: string; hits: number }[]>(`SELECT key, hits FROM rate_limits WHERE key = ANY($1::text[])`, [
      [rowKey(everyone), rowKey(perPerson)],
    ]);
    // A look counts nothing: the full limit is named, the other has room.
    await expect(counters.full([everyone, perPerson])).resolves.toMatchObject({ limit: { rule: 'delete-cap' } });
    await expect(counters.full([everyone])).resolves.toBeNull();
    // The calls a limit refused are taken back from every counter they touched.
    expect(hits).toEqual(
      expect.arrayContaining([
        { key: rowKey(everyone), hits: 20 },
        { key: rowKey(perPerson), hits: 20 },
      ]),
    );
    expect(hits).toHaveLength(2);
  });

  it('keeps a counter under a digest of its key, whatever the length of the rule it stands for', async () => {
    const counters = new DatabasePolicyCounters(db.database);
    const long: PolicyLimit = { rule: 'many-people', position: 1, max: 1, window: 'minute', windowMs: 60_000, key: 'x'.repeat(20_000) };
    await expect(counters.take([long])).resolves.toBeNull();
    await expect(counters.take([long])).resolves.toMatchObject({ limit: { rule: 'many-people' } });
    expect(rowKey(long)).toMatch(/^policy:[0-9a-f]{64}$/);
  });

  it("reads a caller's role, and none for an account that is not there", async () => {
    const callers = new DatabasePolicyAccounts(db.database);
    await expect(callers.roleOf(userId)).resolves.toBe('admin');
    await expect(callers.roleOf('00000000-0000-4000-8000-000000000000')).resolves.toBeNull();
  });
});
