import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { EntityManager } from 'typeorm';
import type { VerifyAuditChainUseCase } from '../../src/application/audit/verify-audit-chain.use-case';
import { asTablesOwner, auditVerifyCommand, thenUndone, verifierOn } from '../support/audit-chain';
import { usingPostgresServer } from '../support/test-database';
import { useOpenDatabase } from '../support/persistence';

/** The sealed log every run tampers with: two batches, a checkpoint after each. */
const BATCH = 4;

/** Where a forged or renumbered row goes: a row's own number, next to it, or far outside the numbering. */
const numberAmong = (seqs: readonly number[]) =>
  fc.oneof(
    fc.constantFrom(...seqs.map(String)),
    fc.constantFrom('0', '-1', '9223372036854775807', '-9223372036854775808', String(Number.MAX_SAFE_INTEGER)),
    fc.integer({ min: -1000, max: 0 }).map(String),
    fc.integer({ min: 1, max: 1000 }).map((above) => String(Math.max(...seqs) + above)),
  );

/** JSON PostgreSQL's jsonb stores (its text has no NUL). */
const json = fc.jsonValue({ maxDepth: 2 }).filter((value) => !JSON.stringify(value).includes('\\u0000'));
const text = (maxLength: number) => fc.string({ maxLength }).filter((value) => !value.includes('\u0000'));

/** One column of a row changed to another value of its type (a change to the same value is no change, and skipped below). */
const alteration = fc.oneof(
  text(64).map((value) => ({ set: 'tool = $2', value })),
  json.map((value) => ({ set: 'arguments = $2::jsonb', value: JSON.stringify(value) })),
  text(32).map((value) => ({ set: 'status = $2', value })),
  fc.constantFrom('mcp', 'chat', 'admin', 'outreach').map((value) => ({ set: 'source = $2', value })),
  fc.uuid().map((value) => ({ set: 'actor_id = $2::uuid', value })),
  fc
    .integer({ min: -1_000_000_000, max: 1_000_000_000 })
    .filter((shift) => shift !== 0)
    .map((value) => ({ set: `created_at = created_at + $2::bigint * interval '1 microsecond'`, value: String(value) })),
  fc.option(json).map((value) => ({ set: 'result = $2::jsonb', value: value === null ? null : JSON.stringify(value) })),
  fc.option(text(64)).map((value) => ({ set: 'error_code = $2', value })),
  fc.option(text(200)).map((value) => ({ set: 'error_message = $2', value })),
  fc.option(fc.integer({ min: 0, max: 100_000 })).map((value) => ({ set: 'duration_ms = $2::int', value })),
  fc.array(json, { maxLength: 2 }).map((value) => ({ set: 'security_events = $2::jsonb', value: JSON.stringify(value) })),
  fc.option(json).map((value) => ({ set: 'policy = $2::jsonb', value: value === null ? null : JSON.stringify(value) })),
  fc.option(fc.integer({ min: -5, max: 20 })).map((value) => ({ set: 'pending_seq = $2::bigint', value })),
);

type Tampering =
  | { kind: 'insert'; seq: string; tool: string; arguments: unknown }
  | { kind: 'copy'; from: number; seq: string }
  | { kind: 'delete'; seq: number }
  | { kind: 'renumber'; seq: number; to: string }
  | { kind: 'alter'; seq: number; set: string; value: unknown };

/** What the tables' owner may do to the rows, at any position and with any number: the whole class, in sequences of 1 to 4. */
function tamperings(seqs: readonly number[]): fc.Arbitrary<Tampering[]> {
  const row = fc.constantFrom(...seqs);
  const seq = numberAmong(seqs);
  const one: fc.Arbitrary<Tampering> = fc.oneof(
    fc.record({ kind: fc.constant('insert' as const), seq, tool: text(64), arguments: json }),
    fc.record({ kind: fc.constant('copy' as const), from: row, seq }),
    fc.record({ kind: fc.constant('delete' as const), seq: row }),
    fc.record({ kind: fc.constant('renumber' as const), seq: row, to: seq }),
    fc.tuple(row, alteration).map(([target, { set, value }]) => ({ kind: 'alter' as const, seq: target, set, value })),
  );
  return fc.array(one, { minLength: 1, maxLength: 4 });
}

/** Every row as a reader sees it (row_to_json: jsonb normalized, timestamps to the microsecond), in one text. */
async function fingerprint(manager: EntityManager): Promise<string> {
  const [{ rows }] = await manager.query<{ rows: string | null }[]>(
    `SELECT string_agg(row_to_json(a)::text, E'\\n' ORDER BY a.seq, row_to_json(a)::text) AS rows FROM audit_log a`,
  );
  return rows ?? '';
}

describe(`full verification over generated tamperings, on ${usingPostgresServer ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();
  let verifier: VerifyAuditChainUseCase;
  let seqs: number[];
  let copyColumns: string;

  beforeAll(async () => {
    verifier = verifierOn(db.database, BATCH);
    const actorId = randomUUID();
    seqs = [];
    for (let batch = 0; batch < 2; batch++) {
      // Rows of every shape: a pending row and its outcome, a refusal with its message and policy.
      const rows = await db.database.query<{ seq: string }[]>(
        `INSERT INTO audit_log (source, actor_id, tool, arguments, status, result, error_code, error_message, duration_ms, policy)
         SELECT 'mcp', $1::uuid, 'add_task', jsonb_build_object('title', 'buy milk ' || n), 'pending', NULL::jsonb, NULL, NULL, NULL::int, NULL::jsonb
           FROM generate_series(1, ${BATCH / 2}) n
         UNION ALL
         SELECT 'chat', $1::uuid, 'delete_task', jsonb_build_object('id', n), 'rejected', NULL, 'POLICY_DENIED', 'Not allowed', 3,
                jsonb_build_object('version', 1, 'rule', 'no-deletes', 'effect', 'deny')
           FROM generate_series(1, ${BATCH / 2}) n
         RETURNING seq`,
        [actorId],
      );
      const numbers = rows.map((row) => Number(row.seq));
      await db.database.query(
        `INSERT INTO audit_log (source, actor_id, tool, arguments, status, result, duration_ms, pending_seq)
         VALUES ('mcp', $1, 'add_task', '{}', 'succeeded', '{"id": 1}', 12, $2)`,
        [actorId, numbers[0]],
      );
      await verifier.verify(true);
      seqs.push(...numbers);
    }
    seqs = (await db.database.query<{ seq: string }[]>(`SELECT seq FROM audit_log ORDER BY seq`)).map((row) => Number(row.seq));
    const [{ columns }] = await db.database.query<{ columns: string }[]>(
      `SELECT string_agg(column_name, ', ' ORDER BY ordinal_position) AS columns
       FROM information_schema.columns WHERE table_name = 'audit_log' AND column_name <> 'seq'`,
    );
    copyColumns = columns;
    expect(await verifier.verify(true)).toMatchObject({ verified: true, checkedRows: seqs.length, firstBadCheckpoint: null });
  });

  function statement(tampering: Tampering): [string, unknown[]] {
    switch (tampering.kind) {
      case 'insert':
        return [
          `INSERT INTO audit_log (seq, source, actor_id, tool, arguments, status) VALUES ($1::bigint, 'mcp', $2::uuid, $3, $4::jsonb, 'succeeded')`,
          [tampering.seq, randomUUID(), tampering.tool, JSON.stringify(tampering.arguments)],
        ];
      case 'copy':
        return [
          `INSERT INTO audit_log (seq, ${copyColumns}) SELECT $2::bigint, ${copyColumns} FROM audit_log WHERE seq = $1::bigint`,
          [tampering.from, tampering.seq],
        ];
      case 'delete':
        return [`DELETE FROM audit_log WHERE seq = $1::bigint`, [tampering.seq]];
      case 'renumber':
        return [`UPDATE audit_log SET seq = $2::bigint WHERE seq = $1::bigint`, [tampering.seq, tampering.to]];
      case 'alter':
        return [`UPDATE audit_log SET ${tampering.set} WHERE seq = $1::bigint`, [tampering.seq, tampering.value]];
    }
  }

  it('fails on every change to the rows (insert, copy, delete, renumber, alter, at any number), and never throws', async () => {
    let changed = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constant(null).chain(() => tamperings(seqs)),
        async (plan) => {
          const outcome = await thenUndone(db.database, async (manager) => {
            const before = await fingerprint(manager);
            await asTablesOwner(manager, plan.map(statement));
            if ((await fingerprint(manager)) === before) return null;
            return { full: await verifier.verify(true), command: await auditVerifyCommand(verifier, true) };
          });
          // Steps that undo each other (a row renumbered and back) leave the log as it was: nothing to find.
          fc.pre(outcome !== null);
          changed += 1;
          expect(outcome.full.verified).toBe(false);
          expect(outcome.full.firstBadSeq).not.toBeNull();
          expect(outcome.command).toMatchObject({ status: 1, report: { verified: false } });
        },
      ),
      { numRuns: 150 },
    );
    expect(changed).toBeGreaterThan(100);
    expect(await verifier.verify(true)).toMatchObject({ verified: true, checkedRows: seqs.length });
  }, 300_000);
});
