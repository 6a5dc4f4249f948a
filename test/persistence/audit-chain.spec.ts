import { randomUUID } from 'node:crypto';
import type { ToolAuditEntry } from '../../src/application/agent/ports/audit-log.port';
import { type Database, openDatabase } from '../../src/infrastructure/persistence/database';
import { AuditAppender } from '../../src/infrastructure/persistence/repositories/postgres-audit-log';
import { RecordingMetrics } from '../fakes/recording-metrics';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

/** The chain as the database holds it: each row's link to the previous, recomputed in SQL. */
const BROKEN_LINKS = `
  SELECT seq FROM (
    SELECT seq, prev_hash, hash, audit_row_hash(prev_hash, a) AS recomputed,
           coalesce(lag(hash) OVER (ORDER BY seq), repeat('0', 64)) AS previous
    FROM audit_log a) c
  WHERE prev_hash <> previous OR hash <> recomputed
  ORDER BY seq`;

describe(`the audit chain on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  let testDb: TestDatabase;
  let database: Database;
  let appender: AuditAppender;
  const actorId = randomUUID();
  const entry = (tool: string, args: Record<string, unknown> = {}): ToolAuditEntry => ({
    source: 'mcp',
    actorId,
    tool,
    arguments: args,
    securityEvents: [],
  });

  beforeAll(async () => {
    testDb = await createTestDatabase();
    database = await openDatabase(testDb.settings);
    appender = new AuditAppender(new RecordingMetrics());
  });

  afterAll(async () => {
    await database?.close();
    await testDb?.dispose();
  });

  it('stays one unbroken chain in sequence order while 4 writers append at once', async () => {
    const writers = Array.from({ length: 4 }, async (_, writer) => {
      for (let i = 0; i < 100; i++) {
        // Half inside transactions that do more work, as outreach does.
        if (i % 2 === 0) await appender.append(database.dataSource, entry(`w${writer}`, { i }), { status: 'succeeded' }, null);
        else {
          await appender.transaction(database.dataSource, async (manager, append) => {
            await append(entry(`w${writer}`, { i }), { status: 'pending' }, null);
            await manager.query('SELECT pg_sleep(0.001)');
          });
        }
      }
    });
    await Promise.all(writers);

    const rows = await database.dataSource.query<{ n: string }[]>(`SELECT count(*) AS n FROM audit_log`);
    expect(Number(rows[0].n)).toBe(400);
    expect(await database.dataSource.query(BROKEN_LINKS)).toEqual([]);
  });

  it('refuses UPDATE, DELETE and TRUNCATE; going around the trigger breaks the chain at that row', async () => {
    const seq = await appender.append(database.dataSource, entry('add_task', { title: 'original' }), { status: 'succeeded' }, null);
    await appender.append(database.dataSource, entry('list_tasks'), { status: 'succeeded' }, null);

    await expect(database.dataSource.query(`UPDATE audit_log SET tool = 'x' WHERE seq = $1`, [seq])).rejects.toThrow(/append-only/);
    await expect(database.dataSource.query(`DELETE FROM audit_log WHERE seq = $1`, [seq])).rejects.toThrow(/append-only/);
    await expect(database.dataSource.query(`TRUNCATE audit_log`)).rejects.toThrow(/append-only/);

    // The owner can go around it; the chain shows where.
    await database.dataSource.query(`ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only`);
    await database.dataSource.query(`UPDATE audit_log SET arguments = '{"title":"forged"}' WHERE seq = $1`, [seq]);
    await database.dataSource.query(`ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only`);
    const broken = await database.dataSource.query<{ seq: string }[]>(BROKEN_LINKS);
    expect(broken.map((row) => Number(row.seq))).toEqual([seq]);
  });

  it('masks secrets before they reach the table', async () => {
    const seq = await appender.append(
      database.dataSource,
      entry('add_task', {
        title: 'call back with key sk-proj-abcdefghijklmnop1234',
        apiKey: 'plain-secret',
        headers: { Authorization: 'Bearer abc.def' },
      }),
      { status: 'failed', result: { error: 'token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl rejected' } },
      null,
    );
    const [row] = await database.dataSource.query<{ text: string }[]>(
      `SELECT arguments::text || result::text AS text FROM audit_log WHERE seq = $1`,
      [seq],
    );
    expect(row.text).not.toMatch(/sk-proj|plain-secret|abc\.def|eyJhbGci/);
    expect(row.text).toContain('[REDACTED]');
  });
});
