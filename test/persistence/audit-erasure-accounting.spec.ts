import { randomUUID } from 'node:crypto';
import { ErasePersonalDataUseCase } from '../../src/application/privacy/erase-personal-data.use-case';
import { PostgresAuditLog } from '../../src/infrastructure/persistence/repositories/postgres-audit-log';
import { PostgresErasureStore } from '../../src/infrastructure/persistence/repositories/postgres-erasure-store';
import { ErasedAddressKey } from '../../src/infrastructure/security/erased-address-key';
import { AuditAppender } from '../../src/infrastructure/persistence/tables/audit-log';
import { FixedClock } from '../fakes/fixed-clock';
import { RecordingMetrics } from '../fakes/recording-metrics';
import { asTablesOwner, auditVerifyCommand, thenUndone, verifierOn } from '../support/audit-chain';
import { useOpenDatabase } from '../support/persistence';
import { usingPostgresServer } from '../support/test-database';

const engine = usingPostgresServer ? 'PostgreSQL' : 'PGlite';

/**
 * An erasure cannot be hidden (docs/decisions/0017-erasure-and-retention.md): the table's trigger
 * accepts the UPDATE that empties a row and stamps it from whoever can write the table, so full
 * verification pairs every erased row with the erasure that emptied it.
 */
describe(`erasures accounted for, on ${engine}`, () => {
  const db = useOpenDatabase();

  it('verifies rows erased by an erasure, and names a row emptied around the service, or one more than the erasure counted', async () => {
    const database = db.database;
    const clock = new FixedClock(new Date());
    const erase = new ErasePersonalDataUseCase(
      new PostgresErasureStore(database, ErasedAddressKey.derive('test secret')),
      new PostgresAuditLog(database, new AuditAppender(new RecordingMetrics())),
      clock,
    );
    const verifier = verifierOn(database, 50);
    const [admin] = await database.query<{ id: string }[]>(
      `INSERT INTO users (email, password_hash, role) VALUES ('admin.acct@example.com', 'x', 'admin') RETURNING id`,
    );
    const [person] = await database.query<{ id: string }[]>(
      `INSERT INTO users (email, password_hash, role) VALUES ('erased.acct@example.com', 'x', 'user') RETURNING id`,
    );
    const bystander = randomUUID();
    await database.query(
      `INSERT INTO audit_log (source, actor_id, tool, arguments, status)
       SELECT 'mcp', CASE WHEN n % 3 = 0 THEN $1::uuid ELSE $2::uuid END, 'add_task', jsonb_build_object('title', 'row ' || n), 'succeeded'
       FROM generate_series(1, 120) n`,
      [person.id, bystander],
    );
    const counts = await erase.eraseAccount({ actorId: admin.id, admin: true }, person.id);
    expect(counts.auditRows).toBe(40);
    const [outcome] = await database.query<{ result: { erasedAt: string; auditRows: number } }[]>(
      `SELECT result FROM audit_log WHERE tool = 'erasure.account' AND pending_seq IS NOT NULL`,
    );
    expect(outcome.result).toMatchObject({ auditRows: 40, erasedAt: clock.now().toISOString() });
    expect(await verifier.verify(true)).toMatchObject({ verified: true, firstBadSeq: null, firstUnexplainedErasure: null });

    const [victim] = await database.query<{ seq: string }[]>(
      `SELECT min(seq) AS seq FROM audit_log WHERE actor_id = $1 AND erased_at IS NULL AND tool = 'add_task'`,
      [bystander],
    );
    const victimSeq = Number(victim.seq);

    // Anyone who can write the table: the trigger accepts the erasure's UPDATE, commitment kept, so every link still holds.
    const emptied = await thenUndone(database, async (manager) => {
      await manager.query(
        `UPDATE audit_log a SET arguments = '{}', result = NULL, error_message = NULL, personal_commitment = audit_personal_commitment(a),
           personal_salt = NULL, erased_by = $2, erased_at = now() WHERE seq = $1`,
        [victimSeq, admin.id],
      );
      return { service: await verifier.verify(true), command: await auditVerifyCommand(verifier, true) };
    });
    expect(emptied.service).toMatchObject({
      verified: false,
      firstBadSeq: null,
      firstBadCheckpoint: null,
      firstUnexplainedErasure: victimSeq,
    });
    expect(emptied.command).toMatchObject({ status: 1, report: { verified: false, firstUnexplainedErasure: victimSeq } });
    // The default verify (from the newest checkpoint) does not look: full verification is the one that does.
    expect(await verifier.verify(false)).toMatchObject({ firstUnexplainedErasure: null });

    // The owner, triggers off, stamps one more row as if the real erasure had emptied it: more rows than it counted.
    const [stamp] = await database.query<{ erased_at: Date }[]>(`SELECT erased_at FROM audit_log WHERE erased_by = $1 LIMIT 1`, [admin.id]);
    const [firstOfErasure] = await database.query<{ seq: string }[]>(`SELECT min(seq) AS seq FROM audit_log WHERE erased_by = $1`, [
      admin.id,
    ]);
    const smuggled = await thenUndone(database, async (manager) => {
      await asTablesOwner(manager, [
        [
          `UPDATE audit_log a SET arguments = '{}', personal_commitment = audit_personal_commitment(a), personal_salt = NULL,
             erased_by = $2, erased_at = $3 WHERE seq = $1`,
          [victimSeq, admin.id, stamp.erased_at],
        ],
      ]);
      return verifier.verify(true);
    });
    // The erasure's rows can no longer be told from the smuggled one: its first row is named.
    expect(smuggled).toMatchObject({ verified: false, firstUnexplainedErasure: Math.min(victimSeq, Number(firstOfErasure.seq)) });

    // Undone, everything holds again.
    expect(await verifier.verify(true)).toMatchObject({ verified: true, firstUnexplainedErasure: null });
  });
});
