import { randomUUID } from 'node:crypto';
import type { ToolAuditEntry } from '../../src/application/audit/ports/audit-log.port';
import { SealAuditChainUseCase } from '../../src/application/audit/seal-audit-chain.use-case';
import { PostgresAuditChainSealer } from '../../src/infrastructure/persistence/repositories/postgres-audit-chain-sealer';
import { AuditAppender } from '../../src/infrastructure/persistence/tables/audit-log';
import { PostgresAuditReader } from '../../src/infrastructure/persistence/repositories/postgres-audit-reader';
import { RecordingMetrics } from '../fakes/recording-metrics';
import { BROKEN_LINKS, STRAY_ROWS } from '../support/audit-chain';
import { usingPostgresServer } from '../support/test-database';
import { useOpenDatabase } from '../support/persistence';

const itOnPostgres = usingPostgresServer ? it : it.skip;

describe(`the audit chain on ${usingPostgresServer ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();
  let appender: AuditAppender;
  let sealer: PostgresAuditChainSealer;
  let sealAll: SealAuditChainUseCase;
  let reader: PostgresAuditReader;
  const actorId = randomUUID();
  const entry = (tool: string, args: Record<string, unknown> = {}): ToolAuditEntry => ({
    source: 'mcp',
    actorId,
    tool,
    arguments: args,
    securityEvents: [],
  });
  const append = (tool: string, args: Record<string, unknown> = {}) =>
    appender.append(db.database, entry(tool, args), { status: 'succeeded' }, null);
  const chainOrder = async () =>
    (await db.database.query<{ seq: string }[]>(`SELECT seq FROM audit_chain ORDER BY position`)).map((row) => Number(row.seq));
  const count = async (table: string) => Number((await db.database.query<{ n: string }[]>(`SELECT count(*) AS n FROM ${table}`))[0].n);

  beforeAll(() => {
    appender = new AuditAppender(new RecordingMetrics());
    sealer = new PostgresAuditChainSealer(db.database);
    sealAll = new SealAuditChainUseCase(sealer);
    reader = new PostgresAuditReader(db.database);
  });

  it('stays one unbroken chain while 8 writers append and two sealers seal beside them', async () => {
    let writing = true;
    const writers = Array.from({ length: 8 }, async (_, writer) => {
      for (let i = 0; i < 50; i++) {
        // Half inside transactions that do more work, as outreach does.
        if (i % 2 === 0) await appender.append(db.database, entry(`w${writer}`, { i }), { status: 'succeeded' }, null);
        else {
          await appender.transaction(db.database, async (manager, appendInTransaction) => {
            await appendInTransaction(entry(`w${writer}`, { i }), { status: 'pending' }, null);
            await manager.query('SELECT pg_sleep(0.001)');
          });
        }
      }
    });
    // Small batches, so that the sealers take turns many times while the writers run.
    const sealers = Array.from({ length: 2 }, async () => {
      while (writing) await sealer.sealBatch(7);
    });
    await Promise.all(writers);
    writing = false;
    await Promise.all(sealers);
    await sealAll.run();

    expect(await count('audit_log')).toBe(400);
    expect(await count('audit_chain')).toBe(400);
    expect(await count('audit_unsealed')).toBe(0);
    expect(await db.database.query(BROKEN_LINKS)).toEqual([]);
    expect(await db.database.query(STRAY_ROWS)).toEqual([]);
    const verdict = await reader.verify();
    expect(verdict).toEqual({
      verified: true,
      checkedRows: 400,
      firstBadSeq: null,
      headHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      unsealedRows: 0,
    });
  });

  it('commits the rows appended together in one transaction, each caller getting its own row (group commit)', async () => {
    const metrics = new RecordingMetrics();
    const grouped = new AuditAppender(metrics);
    const tools = Array.from({ length: 20 }, (_, i) => `together_${i}`);
    const seqs = await Promise.all(tools.map((tool, i) => grouped.append(db.database, entry(tool, { i }), { status: 'pending' }, null)));

    const rows = await db.database.query<{ seq: string; tool: string; args: { i: number }; tx: string }[]>(
      `SELECT seq, tool, arguments AS args, xmin::text AS tx FROM audit_log WHERE seq = ANY ($1) ORDER BY seq`,
      [seqs],
    );
    // Every caller's seq names its own row.
    const bySeq = new Map(rows.map((row) => [Number(row.seq), [row.tool, row.args.i]]));
    expect(seqs.map((seq) => bySeq.get(seq))).toEqual(tools.map((tool, i) => [tool, i]));
    // The first went at once, alone; the 19 that arrived while it was written went together.
    expect(new Set(rows.map((row) => row.tx)).size).toBe(2);
    expect(metrics.calls.filter((call) => call.name === 'auditRowAppended')).toHaveLength(20);
    await sealAll.run();
    expect(await reader.verify()).toMatchObject({ verified: true, unsealedRows: 0 });
  });

  it('puts the next rows of writers it has just answered in one batch with the rows that waited', async () => {
    const grouped = new AuditAppender(new RecordingMetrics());
    // Eight writers, each appending its next row as soon as its last is committed, as
    // concurrent turns and the audit-append benchmark do.
    const seqs = (
      await Promise.all(
        Array.from({ length: 8 }, async (_, writer) => {
          const own: number[] = [];
          for (let i = 0; i < 6; i++)
            own.push(await grouped.append(db.database, entry(`steady_${writer}`, { i }), { status: 'pending' }, null));
          return own;
        }),
      )
    ).flat();

    const transactions = await db.database.query<{ tx: string; rows: string }[]>(
      `SELECT xmin::text AS tx, count(*) AS rows FROM audit_log WHERE seq = ANY ($1) GROUP BY xmin ORDER BY min(seq)`,
      [seqs],
    );
    // The first row alone; then every writer's next row in each batch (the first writer's
    // second with the others' first), and the last seven: 48 rows in 7 commits. Taking the
    // next batch before the answered writers append again splits them into halves that
    // alternate (about 19 commits).
    expect(transactions.map((row) => Number(row.rows))).toEqual([1, 8, 8, 8, 8, 8, 7]);
  });

  it('fails only the bad row of a batch: the others are written one by one', async () => {
    const metrics = new RecordingMetrics();
    const grouped = new AuditAppender(metrics);
    const appendOne = (tool: string, actor: string) =>
      grouped.append(db.database, { ...entry(tool), actorId: actor }, { status: 'succeeded' }, null);
    // The first goes alone; the next four are one batch, and one of them cannot be stored.
    const results = await Promise.allSettled([
      appendOne('alone_1', actorId),
      appendOne('alone_2', actorId),
      appendOne('good_1', actorId),
      appendOne('bad', 'not-a-uuid'),
      appendOne('good_2', actorId),
    ]);

    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[3] as PromiseRejectedResult).reason)).toMatch(/uuid/);
    const seqs = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const tools = await db.database.query<{ tool: string }[]>(`SELECT tool FROM audit_log WHERE seq = ANY ($1) ORDER BY tool`, [seqs]);
    expect(tools.map((row) => row.tool)).toEqual(['alone_1', 'alone_2', 'good_1', 'good_2']);
    expect(metrics.calls.filter((call) => call.name === 'auditRowAppended')).toHaveLength(4);
    // The appender is not stuck: the next row goes through.
    await expect(appendOne('after', actorId)).resolves.toBeGreaterThan(Math.max(...seqs));
  });

  itOnPostgres('takes no lock to append: a writer whose transaction is still open holds up no other', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let appended!: (seq: number) => void;
    const slowAppended = new Promise<number>((resolve) => (appended = resolve));
    // The slow writer's row is numbered first and commits last.
    const slow = appender.transaction(db.database, async (_manager, appendInTransaction) => {
      appended(await appendInTransaction(entry('slow'), { status: 'pending' }, null));
      await released;
    });
    const slowSeq = await slowAppended;
    try {
      let timer: NodeJS.Timeout | undefined;
      const fast = await Promise.race([
        append('fast'),
        new Promise<never>(
          (_, reject) => (timer = setTimeout(() => reject(new Error('the append waited for another transaction')), 5_000)),
        ),
      ]).finally(() => clearTimeout(timer));
      expect(fast).toBeGreaterThan(slowSeq);

      // Sealed in the order they committed: the fast row now, the slow one once it commits.
      await sealAll.run();
      expect((await chainOrder()).slice(-1)).toEqual([fast]);
      release();
      await slow;
      await sealAll.run();
      expect((await chainOrder()).slice(-2)).toEqual([fast, slowSeq]);
      expect(await db.database.query(BROKEN_LINKS)).toEqual([]);
    } finally {
      release();
      await slow;
    }
  });

  /**
   * Runs `meanwhile` while another sealer's transaction holds the lock, having sealed the one
   * row queued before; `commit` ends that transaction. A row appended meanwhile waits.
   */
  async function whileAnotherSeals(meanwhile: (commit: () => Promise<void>) => Promise<void>): Promise<void> {
    await append('queued');
    const first = db.database.createQueryRunner();
    await first.connect();
    try {
      await first.startTransaction();
      expect(await first.query(`SELECT audit_seal(1000) AS sealed`)).toEqual([{ sealed: 1 }]);
      await append('meanwhile');
      await meanwhile(() => first.commitTransaction());
    } finally {
      if (first.isTransactionActive) await first.rollbackTransaction();
      await first.release();
    }
    expect(await db.database.query(BROKEN_LINKS)).toEqual([]);
  }

  itOnPostgres('seals in one process at a time: a second sealer leaves while the first holds the lock', async () => {
    await whileAnotherSeals(async (commit) => {
      expect(await sealer.sealBatch(1000)).toBe(0);
      await commit();
      expect(await sealer.sealBatch(1000)).toBe(1);
    });
  });

  itOnPostgres("seals to the end for verify: waits for another process's batch instead of leaving the tail", async () => {
    await whileAnotherSeals(async (commit) => {
      const thorough = sealAll.run({ waitForOtherSealer: true });
      // It waits while the other holds the lock, then seals what that one left.
      const early = await Promise.race([thorough, new Promise((resolve) => setTimeout(() => resolve('waiting'), 200))]);
      expect(early).toBe('waiting');
      await commit();
      await expect(thorough).resolves.toBe(1);
    });
    expect(await count('audit_unsealed')).toBe(0);
  });

  it("queues rows inserted by plain SQL too (a migration, an operator's script), several per statement", async () => {
    const rows = await db.database.query<{ seq: string }[]>(
      `INSERT INTO audit_log (source, actor_id, tool, arguments, status)
       SELECT 'admin', $1, 'revoke_admin', jsonb_build_object('n', n), 'succeeded' FROM generate_series(1, 3) n RETURNING seq`,
      [actorId],
    );
    await sealAll.run();
    expect((await chainOrder()).slice(-3)).toEqual(rows.map((row) => Number(row.seq)));
    expect(await reader.verify()).toMatchObject({ verified: true, unsealedRows: 0 });
  });

  // How a batch's sealing time grows with its size is measured by npm run bench:audit-verify (timings stay out of the suites).

  it('reads only its batch of the log to seal it, however large the log (migration 1766448000000)', async () => {
    await sealAll.run();
    // One connection, as a server process's pool holds them: the plans PL/pgSQL caches for
    // audit_seal live as long as it does.
    const connection = db.database.createQueryRunner();
    await connection.connect();
    try {
      const queue = (rows: number) =>
        connection.query(
          `INSERT INTO audit_log (source, actor_id, tool, arguments, status)
           SELECT 'mcp', $1, 'add_task', jsonb_build_object('title', 'buy milk ' || n), 'succeeded' FROM generate_series(1, $2::int) n`,
          [actorId, rows],
        );
      const sealReading = async (rows: number) => {
        await queue(rows);
        // This transaction's reads of audit_log so far (PGlite keeps counting across them).
        const reads = async () => {
          const [read] = (await connection.query(
            `SELECT seq_tup_read, idx_tup_fetch FROM pg_stat_xact_user_tables WHERE relname = 'audit_log'`,
          )) as { seq_tup_read: string; idx_tup_fetch: string }[];
          return { sequential: Number(read.seq_tup_read), byKey: Number(read.idx_tup_fetch) };
        };
        await connection.startTransaction();
        const before = await reads();
        const [{ sealed }] = (await connection.query(`SELECT audit_seal(${rows}) AS sealed`)) as { sealed: number }[];
        const after = await reads();
        await connection.commitTransaction();
        return { sealed, sequential: after.sequential - before.sequential, byKey: after.byKey - before.byKey };
      };
      // Enough batches for PL/pgSQL to keep its generic plans, then batches on a log grown by
      // thousands of rows: each reads its own rows by key and nothing else.
      for (let batch = 0; batch < 6; batch++) await sealReading(50);
      await queue(3000);
      await connection.query(`SELECT audit_seal(5000)`);
      expect(await sealReading(1000)).toEqual({ sealed: 1000, sequential: 0, byKey: 1000 });
      expect(await sealReading(200)).toEqual({ sealed: 200, sequential: 0, byKey: 200 });
    } finally {
      await connection.release();
    }
    expect(await db.database.query(BROKEN_LINKS)).toEqual([]);
  }, 60_000);

  it('refuses UPDATE, DELETE and TRUNCATE; going around the triggers breaks the chain where it happened', async () => {
    const seq = await append('add_task', { title: 'original' });
    const gone = await append('list_tasks');
    await append('list_tasks');
    await sealAll.run();

    for (const table of ['audit_log', 'audit_chain']) {
      await expect(db.database.query(`UPDATE ${table} SET seq = seq WHERE seq = $1`, [seq])).rejects.toThrow(/append-only/);
      await expect(db.database.query(`DELETE FROM ${table} WHERE seq = $1`, [seq])).rejects.toThrow(/append-only/);
      await expect(db.database.query(`TRUNCATE ${table}`)).rejects.toThrow(/append-only/);
    }

    // The owner can go around them; the chain shows where.
    await db.database.query(`ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only`);
    await db.database.query(`UPDATE audit_log SET arguments = '{"title":"forged"}' WHERE seq = $1`, [seq]);
    await db.database.query(`DELETE FROM audit_log WHERE seq = $1`, [gone]);
    await db.database.query(`ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only`);
    // A row slipped in with the queueing trigger off is never sealed: verify names it.
    await db.database.query(`ALTER TABLE audit_log DISABLE TRIGGER audit_log_queue`);
    const [{ seq: slipped }] = await db.database.query<{ seq: string }[]>(
      `INSERT INTO audit_log (source, actor_id, tool, arguments, status) VALUES ('mcp', $1, 'add_task', '{}', 'succeeded') RETURNING seq`,
      [actorId],
    );
    await db.database.query(`ALTER TABLE audit_log ENABLE TRIGGER audit_log_queue`);
    await sealAll.run();

    const broken = await db.database.query<{ seq: string }[]>(BROKEN_LINKS);
    expect(broken.map((row) => Number(row.seq))).toEqual([seq, gone]);
    expect((await db.database.query<{ seq: string }[]>(STRAY_ROWS)).map((row) => Number(row.seq))).toEqual([Number(slipped)]);
    expect(await reader.verify()).toMatchObject({ verified: false, firstBadSeq: seq });
  });

  it('masks secrets before they reach the table', async () => {
    const seq = await appender.append(
      db.database,
      entry('add_task', {
        title: 'call back with key sk-proj-abcdefghijklmnop1234',
        apiKey: 'plain-secret',
        headers: { Authorization: 'Bearer abc.def' },
      }),
      { status: 'failed', result: { error: 'token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl rejected' } },
      null,
    );
    const [row] = await db.database.query<{ text: string }[]>(
      `SELECT arguments::text || result::text AS text FROM audit_log WHERE seq = $1`,
      [seq],
    );
    expect(row.text).not.toMatch(/sk-proj|plain-secret|abc\.def|eyJhbGci/);
    expect(row.text).toContain('[REDACTED]');
  });
});
