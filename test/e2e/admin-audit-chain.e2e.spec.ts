import { type DataSource } from 'typeorm';
import { type SignedInUser } from '../support/accounts';
import { AuditedApp, type AuditItem } from '../support/admin-audit';

/** The audit chain, as the admin API verifies it: append-only in the database, and any tampering found. */
describe('admin audit chain', () => {
  const audit = new AuditedApp();
  const { get, exportText, headSeq } = audit;
  let sql: DataSource, ada: SignedInUser;
  beforeAll(() => {
    ({ sql, ada } = audit);
  });

  it('verifies an untouched chain, sealing first every row committed before the request', async () => {
    const [before] = await sql.query<{ n: string }[]>(`SELECT count(*) AS n FROM audit_log`);
    const res = await get('/admin/audit-logs/verify').expect(200);
    expect(res.body).toEqual({
      verified: true,
      checkedRows: Number(before.n),
      firstBadSeq: null,
      headHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      unsealedRows: 0,
      // Far fewer rows than AUDIT_CHECKPOINT_ROWS, in less than AUDIT_CHECKPOINT_MINUTES: no checkpoint yet, the whole chain.
      from: 1,
      checkpoint: null,
      firstBadCheckpoint: null,
      firstUnexplainedErasure: null,
    });
    const [head] = await sql.query<{ hash: string }[]>(`SELECT hash FROM audit_chain WHERE position = $1`, [res.body.checkedRows]);
    expect(res.body.headHash).toBe(head.hash);
  });

  it('refuses a plain UPDATE, DELETE or TRUNCATE in the database', async () => {
    const seq = await headSeq();
    await expect(sql.query(`UPDATE audit_log SET status = 'failed' WHERE seq = $1`, [seq])).rejects.toThrow(/append-only/);
    await expect(sql.query(`DELETE FROM audit_log WHERE seq = $1`, [seq])).rejects.toThrow(/append-only/);
    await expect(sql.query(`TRUNCATE audit_log`)).rejects.toThrow(/append-only/);
    expect((await get('/admin/audit-logs/verify').expect(200)).body.verified).toBe(true);
  });

  it('finds a row altered around the trigger, and one deleted around it', async () => {
    // Every row sealed first: a row altered before it is sealed is sealed as altered (docs/decisions/0008).
    await get('/admin/audit-logs/verify').expect(200);
    const [victim] = await sql.query<{ seq: string; arguments: string }[]>(
      `SELECT seq, arguments::text AS arguments FROM audit_log WHERE source = 'mcp' AND tool = 'add_task' ORDER BY seq LIMIT 1`,
    );
    const asOwner = async (statement: string, params: unknown[]) => {
      await sql.query(`ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only`);
      try {
        await sql.query(statement, params);
      } finally {
        await sql.query(`ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only`);
      }
    };

    await asOwner(`UPDATE audit_log SET arguments = '{"title": "Something innocent"}' WHERE seq = $1`, [victim.seq]);
    const altered = await get('/admin/audit-logs/verify').expect(200);
    expect(altered.body).toEqual(expect.objectContaining({ verified: false, firstBadSeq: Number(victim.seq) }));

    // Put back exactly as it was, the chain holds again: verify reads the content, not a flag.
    await asOwner(`UPDATE audit_log SET arguments = $2::jsonb WHERE seq = $1`, [victim.seq, victim.arguments]);
    expect((await get('/admin/audit-logs/verify').expect(200)).body).toEqual(
      expect.objectContaining({ verified: true, firstBadSeq: null }),
    );

    const [gone] = await sql.query<{ seq: string }[]>(
      `SELECT a.seq FROM audit_log a
       WHERE a.source = 'chat' AND NOT EXISTS (SELECT 1 FROM audit_log o WHERE o.pending_seq = a.seq)
       ORDER BY a.seq LIMIT 1`,
    );
    await asOwner(`DELETE FROM audit_log WHERE seq = $1`, [gone.seq]);
    const deleted = await get('/admin/audit-logs/verify').expect(200);
    // Its link stays in the chain and no longer finds its row.
    expect(deleted.body).toEqual(expect.objectContaining({ verified: false, firstBadSeq: Number(gone.seq) }));
    await get(`/admin/audit-logs/${gone.seq}`).expect(404);
  });

  it('finds rows numbered 0 and -1 slipped in by the owner, and lists none of them: 200, never a 500', async () => {
    await sql.query(`ALTER TABLE audit_log DISABLE TRIGGER USER`);
    await sql.query(`ALTER TABLE audit_log DROP CONSTRAINT audit_log_numbered`);
    try {
      await sql.query(
        `INSERT INTO audit_log (seq, source, actor_id, tool, arguments, status)
         VALUES (0, 'mcp', $1, 'delete_task', '{"id": 1}', 'succeeded'), (-1, 'mcp', $1, 'delete_task', '{"id": 2}', 'succeeded')`,
        [ada.userId],
      );
    } finally {
      await sql.query(`ALTER TABLE audit_log ENABLE TRIGGER USER`);
    }
    const full = await get('/admin/audit-logs/verify?full=true').expect(200);
    expect(full.body).toMatchObject({ verified: false, firstBadSeq: -1 });
    const listed = (await get(`/admin/audit-logs?actorId=${ada.userId}&limit=100`).expect(200)).body.items as AuditItem[];
    expect(listed.filter((row) => row.seq < 1)).toEqual([]);
    expect(new Set(listed.map((row) => row.chain))).toEqual(new Set(['linked']));
    const exported = (await exportText(`?actorId=${ada.userId}`)).text.trimEnd().split('\n');
    expect(exported.map((line) => (JSON.parse(line) as AuditItem).seq).filter((seq) => seq < 1)).toEqual([]);
    await get('/admin/audit-logs/0').expect(400);
  });
});
