import { randomUUID } from 'node:crypto';
import { AuditRowUnreadableError } from '../../src/domain/audit/audit-errors';
import type { VerifyAuditChainUseCase } from '../../src/application/audit/verify-audit-chain.use-case';
import { AuditNumbering1767744000000 } from '../../src/infrastructure/persistence/migrations/1767744000000-audit-numbering';
import { PostgresAuditReader } from '../../src/infrastructure/persistence/repositories/postgres-audit-reader';
import { asTablesOwner, auditVerifyCommand, thenUndone, verifierOn } from '../support/audit-chain';
import { usingPostgresServer } from '../support/test-database';
import { useOpenDatabase } from '../support/persistence';

const ROWS = 6;
const FORGED_ROW = `INSERT INTO audit_log (seq, source, actor_id, tool, arguments, status) VALUES ($1, 'mcp', $2, 'delete_task', '{"id": 1}', 'succeeded')`;

/**
 * Every row of audit_log is accounted for: numbered from 1, alone with its number, linked once
 * or queued once. Rows the tables' owner slips in around the triggers and constraints fail
 * verification (the use case and the operator's command) and are listed as outside the log.
 */
describe(`every audit row accounted for, on ${usingPostgresServer ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();
  let verifier: VerifyAuditChainUseCase;
  let reader: PostgresAuditReader;
  const actorId = randomUUID();
  let seqs: number[];

  beforeAll(async () => {
    // A checkpoint on the last of the rows: the default verify starts there.
    verifier = verifierOn(db.database, ROWS);
    reader = new PostgresAuditReader(db.database);
    const rows = await db.database.query<{ seq: string }[]>(
      `INSERT INTO audit_log (source, actor_id, tool, arguments, status)
       SELECT 'mcp', $1, 'add_task', jsonb_build_object('title', 'buy milk ' || n), 'succeeded' FROM generate_series(1, ${ROWS}) n
       RETURNING seq`,
      [actorId],
    );
    seqs = rows.map((row) => Number(row.seq));
    await expect(verifier.verify(true)).resolves.toMatchObject({ verified: true, firstBadSeq: null, checkedRows: ROWS });
    await expect(verifier.verify(false)).resolves.toMatchObject({ verified: true, from: ROWS });
  });

  it('refuses a row or a link numbered outside 1 to 2^53 - 1, even with every trigger off (migration 1767744000000)', async () => {
    for (const seq of ['0', '-1', '9007199254740992']) {
      await expect(
        thenUndone(db.database, async (manager) => {
          await manager.query(`SET LOCAL session_replication_role = replica`);
          await manager.query(FORGED_ROW, [seq, actorId]);
        }),
      ).rejects.toThrow(/audit_log_numbered/);
      await expect(
        thenUndone(db.database, async (manager) => {
          await manager.query(`SET LOCAL session_replication_role = replica`);
          await manager.query(
            `INSERT INTO audit_chain (position, seq, prev_hash, hash) VALUES ($1, $2, repeat('0', 64), repeat('0', 64))`,
            [seq, seqs[0]],
          );
        }),
      ).rejects.toThrow(/audit_chain_numbered/);
    }
  });

  const last = () => seqs[ROWS - 1];
  /** Each forgery, the first row verify names, and the rows the listing marks outside the log. */
  const forgeries: {
    name: string;
    statements: () => [string, unknown[]][];
    firstBad: () => number;
    listedOutside: () => number[];
    fromCheckpoint: boolean;
  }[] = [
    // Not rows of the log: not listed (nor shown, nor exported) at all.
    {
      name: 'a row numbered 0',
      statements: () => [[FORGED_ROW, [0, actorId]]],
      firstBad: () => 0,
      listedOutside: () => [],
      fromCheckpoint: true,
    },
    {
      name: 'a row numbered -1',
      statements: () => [[FORGED_ROW, [-1, actorId]]],
      firstBad: () => -1,
      listedOutside: () => [],
      fromCheckpoint: true,
    },
    {
      name: 'a row numbered beyond 2^53 - 1',
      statements: () => [[FORGED_ROW, ['9223372036854775807', actorId]]],
      // As a JSON number reads it: verify reports the number, approximately, beyond 2^53.
      firstBad: () => Number('9223372036854775807'),
      listedOutside: () => [],
      fromCheckpoint: true,
    },
    {
      name: 'a second row with the number of a sealed one',
      statements: () => [[`INSERT INTO audit_log SELECT * FROM audit_log WHERE seq = $1`, [seqs[2]]]],
      firstBad: () => seqs[2],
      listedOutside: () => [seqs[2], seqs[2]],
      fromCheckpoint: false,
    },
    {
      // The row is gone, so nothing to list: its link names it.
      name: 'a gap: a sealed row deleted',
      statements: () => [[`DELETE FROM audit_log WHERE seq = $1`, [seqs[3]]]],
      firstBad: () => seqs[3],
      listedOutside: () => [],
      fromCheckpoint: false,
    },
    {
      name: 'a row beyond the last sealed one, never queued',
      statements: () => [[FORGED_ROW, [last() + 1, actorId]]],
      firstBad: () => last() + 1,
      listedOutside: () => [last() + 1],
      fromCheckpoint: true,
    },
    {
      name: 'a row beyond the last, linked at position 0 where no walk from 1 goes',
      statements: () => [
        [FORGED_ROW, [last() + 1, actorId]],
        [`INSERT INTO audit_chain (position, seq, prev_hash, hash) VALUES (0, $1, repeat('0', 64), repeat('0', 64))`, [last() + 1]],
      ],
      firstBad: () => last() + 1,
      listedOutside: () => [last() + 1],
      fromCheckpoint: true,
    },
  ];

  it.each(forgeries)('finds $name: verify, audit-verify --full, and the listing', async (forgery) => {
    const { statements, firstBad, fromCheckpoint } = forgery;
    await thenUndone(db.database, async (manager) => {
      await asTablesOwner(manager, statements());
      const full = await verifier.verify(true);
      expect(full).toMatchObject({ verified: false, firstBadSeq: firstBad() });
      const command = await auditVerifyCommand(verifier, true);
      expect(command).toMatchObject({ status: 1, report: { verified: false, firstBadSeq: firstBad() } });
      expect(command.stderr).toMatch(/^NOT verified/);
      if (fromCheckpoint) expect(await verifier.verify(false)).toMatchObject({ verified: false, firstBadSeq: firstBad(), from: ROWS });

      const listed = (await reader.list({}, 100, null)).items;
      expect(listed.filter((row) => row.chain === 'outside').map((row) => row.seq)).toEqual(forgery.listedOutside());
      expect(listed.filter((row) => row.chain !== 'outside').every((row) => row.chain === 'linked' && row.hash !== null)).toBe(true);
      const exported: number[] = [];
      for await (const row of reader.export({})) exported.push(row.seq);
      expect(exported).toEqual(listed.map((row) => row.seq).reverse());
      if (firstBad() < 1) expect(await reader.get(firstBad())).toBeNull();
    });
  });

  it('refuses a row of no shape Bridle writes as such (AUDIT.ROW_UNREADABLE), not as a fault of the server; verify finds it', async () => {
    await thenUndone(db.database, async (manager) => {
      await asTablesOwner(manager, [[`UPDATE audit_log SET status = 'forged', source = 'elsewhere' WHERE seq = $1`, [seqs[1]]]]);
      expect(await verifier.verify(true)).toMatchObject({ verified: false, firstBadSeq: seqs[1] });
      await expect(reader.list({}, 100, null)).rejects.toThrow(AuditRowUnreadableError);
      await expect(reader.get(seqs[1])).rejects.toThrow(AuditRowUnreadableError);
      const exportAll = async () => {
        for await (const row of reader.export({})) expect(row.seq).toBeLessThan(seqs[1]);
      };
      await expect(exportAll()).rejects.toThrow(AuditRowUnreadableError);
      // The rows after it are read as before.
      await expect(reader.get(seqs[2])).resolves.toMatchObject({ seq: seqs[2], status: 'succeeded' });
    });
  });

  it('migrates a database that already holds a forged row: the check refuses new ones, and verify names the old one', async () => {
    await thenUndone(db.database, async (manager) => {
      const migration = new AuditNumbering1767744000000();
      await migration.down(manager.queryRunner!);
      await manager.query(`SET LOCAL session_replication_role = replica`);
      await manager.query(FORGED_ROW, [0, actorId]);
      await manager.query(`SET LOCAL session_replication_role = origin`);
      await migration.up(manager.queryRunner!);
      const checks = await manager.query<{ conname: string; convalidated: boolean }[]>(
        `SELECT conname, convalidated FROM pg_constraint WHERE conname IN ('audit_log_numbered', 'audit_chain_numbered') ORDER BY conname`,
      );
      expect(checks).toEqual([
        { conname: 'audit_chain_numbered', convalidated: true },
        { conname: 'audit_log_numbered', convalidated: false },
      ]);
      expect(await verifier.verify(true)).toMatchObject({ verified: false, firstBadSeq: 0 });
      await manager.query(`SAVEPOINT refused`);
      await expect(manager.query(FORGED_ROW, [-1, actorId])).rejects.toThrow(/audit_log_numbered/);
      await manager.query(`ROLLBACK TO SAVEPOINT refused`);
    });
  });

  it('lists a row waiting for the sealer as queued, and verifies again once every forgery is undone', async () => {
    await thenUndone(db.database, async (manager) => {
      const [{ seq }] = await manager.query<{ seq: string }[]>(
        `INSERT INTO audit_log (source, actor_id, tool, arguments, status) VALUES ('mcp', $1, 'list_tasks', '{}', 'succeeded') RETURNING seq`,
        [actorId],
      );
      expect(await reader.get(Number(seq))).toMatchObject({ chain: 'queued', hash: null });
    });
    expect(await verifier.verify(true)).toMatchObject({ verified: true, firstBadSeq: null, checkedRows: ROWS });
  });
});
