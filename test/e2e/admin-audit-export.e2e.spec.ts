import { randomUUID } from 'node:crypto';
import { get as httpGet } from 'node:http';
import request from 'supertest';
import { type DataSource } from 'typeorm';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { AuditedApp, type AuditItem, ITEM_KEYS } from '../support/admin-audit';

const SECRETS = ['sk-abcdefghijklmnop1234', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTYifQ.c2lnbmF0dXJlLXBhcnQ', 'hunter2-very-secret'];

/** The admin audit export over HTTP, what it and the list show of each row, and what they never show. */
describe('admin audit export, and what each row shows', () => {
  const audit = new AuditedApp();
  const { sut, seeded, chat, mcpClient, get, allPages, exportText, headSeq, seqsWhere } = audit;
  let sql: DataSource, mcpUrl: URL, admin: SignedInUser, ada: SignedInUser, bob: SignedInUser, carol: SignedInUser;
  beforeAll(() => {
    ({ sql, mcpUrl, admin, ada, bob, carol } = audit);
  });

  it('exports the filtered rows as NDJSON, oldest first', async () => {
    const head = await headSeq();
    const { status, type, text } = await exportText(`?source=outreach&campaignId=${seeded.campaignId}`);
    expect(status).toBe(200);
    expect(type).toMatch(/^application\/x-ndjson/);
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditItem);
    expect(lines.map((row) => row.seq)).toEqual(
      (await seqsWhere(`source = 'outreach' AND campaign_id = $1`, [seeded.campaignId], head)).reverse(),
    );
    for (const row of lines) {
      expect(Object.keys(row).sort()).toEqual([...ITEM_KEYS].sort());
      expect(row).toEqual(expect.objectContaining({ source: 'outreach', campaignId: seeded.campaignId, actorEmail: carol.email }));
    }
    const listed = await get(`/admin/audit-logs/${lines[0].seq}`).expect(200);
    expect(lines[0]).toEqual(listed.body);

    const all = await exportText('');
    const seqs = all.text
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as AuditItem).seq);
    expect(seqs.length).toBeGreaterThan(lines.length);
    expect(seqs).toEqual(await seqsWhere('TRUE', [], seqs[seqs.length - 1]).then((expected) => expected.reverse()));

    const none = await exportText(`?actorId=${randomUUID()}`);
    expect([none.status, none.text]).toEqual([200, '']);
  });

  it("filters by the actor's email in any case, and exports exactly the rows that filter lists", async () => {
    const head = await headSeq();
    const shouted = encodeURIComponent(` ${bob.email.toUpperCase()} `);
    const listed = (await allPages<AuditItem>('/admin/audit-logs', { actorEmail: bob.email.toUpperCase() })).filter(
      (row) => row.seq <= head,
    );
    const bobs = await seqsWhere('actor_id = $1', [bob.userId], head);
    expect(bobs.length).toBeGreaterThanOrEqual(3);
    expect(listed.map((row) => row.seq)).toEqual(bobs);
    expect(new Set(listed.map((row) => [row.actorId, row.actorEmail].join(' ')))).toEqual(new Set([`${bob.userId} ${bob.email}`]));

    const exported = (await exportText(`?actorEmail=${shouted}`)).text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditItem)
      .filter((row) => row.seq <= head);
    expect(exported).toEqual([...listed].reverse());
    // With another filter, both hold; an email nobody has matches nothing (not everything).
    expect(await allPages<AuditItem>('/admin/audit-logs', { actorEmail: bob.email, source: 'chat' })).toEqual([]);
    expect((await get('/admin/audit-logs?actorEmail=nobody%40example.com').expect(200)).body).toEqual({ items: [], nextCursor: null });
    const audited = await get(`/admin/audit-logs?tool=admin.audit_logs.export&actorId=${admin.userId}&limit=1`).expect(200);
    expect(audited.body.items[0]).toMatchObject({ arguments: { actorEmail: bob.email.toUpperCase() } });
  });

  it('never stores, lists or exports a secret placed in tool arguments', async () => {
    const since = await headSeq();
    const client = await mcpClient(bob);
    await client.callTool({ name: 'add_task', arguments: { title: `rotate key ${SECRETS[0]} today` } });
    await client.callTool({ name: 'add_task', arguments: { title: 'with a key', apiKey: SECRETS[2] } });
    await client.callTool({ name: 'add_task', arguments: { title: `call with Bearer ${SECRETS[1]}` } });
    const turn = await chat(ada, `add check token ${SECRETS[0]}`);
    expect(turn.toolCalls).toEqual([expect.objectContaining({ tool: 'add_task' })]);

    const raw = await sql.query<{ seq: string; row: string }[]>(`SELECT seq, a::text AS row FROM audit_log a`);
    expect(raw.filter((r) => Number(r.seq) > since && r.row.includes('[REDACTED]')).length).toBeGreaterThanOrEqual(4);
    const listed = JSON.stringify(await allPages('/admin/audit-logs', {}, 100));
    const exported = (await exportText('')).text;
    for (const secret of SECRETS) {
      expect(raw.filter((r) => r.row.includes(secret))).toEqual([]);
      expect(listed.includes(secret)).toBe(false);
      expect(exported.includes(secret)).toBe(false);
    }
    expect(listed).toContain('rotate key [REDACTED] today');
    expect(listed).toContain('"apiKey":"[REDACTED]"');
  });

  it('stops reading when the client of an export leaves, and records the export as aborted', async () => {
    // 20 MB of rows: far more than the socket buffers between the server and this client hold.
    await sql.query(
      `INSERT INTO audit_log (source, actor_id, tool, arguments, status, duration_ms, security_events)
       SELECT 'mcp', $1, 'list_tasks', jsonb_build_object('padding', repeat(md5(i::text), 625), 'i', i), 'succeeded', 1, '[]'
       FROM generate_series(1, 1000) i`,
      [bob.userId],
    );
    const total = (await seqsWhere('TRUE', [], await headSeq())).length;
    const since = await headSeq();
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpGet(new URL('/admin/audit-logs/export', mcpUrl), { headers: admin.auth }, (res) => {
        // A client that reads nothing for a while, then leaves.
        res.pause();
        setTimeout(() => {
          req.destroy();
          resolve(res.statusCode ?? 0);
        }, 300);
      });
      req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
    });
    expect(status).toBe(200);

    let outcome: { status: string; error_code: string; result: { rows: number } } | undefined;
    for (let i = 0; i < 100 && !outcome; i++) {
      [outcome] = await sql.query(
        `SELECT status, error_code, result FROM audit_log WHERE seq > $1 AND tool = 'admin.audit_logs.export' AND pending_seq IS NOT NULL`,
        [since],
      );
      if (!outcome) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(outcome).toEqual({ status: 'failed', error_code: 'EXPORT_ABORTED', result: { rows: expect.any(Number) } });
    // Backpressure: the server read little more than what the socket buffers hold.
    expect(outcome!.result.rows).toBeLessThan(total / 2);
  });

  it('gives rows and decisions of an account that no longer exists a null actorEmail, and keeps them', async () => {
    const gone = await signUpAndIn(sut.http);
    const turn = await chat(gone, 'add water the plants');
    expect((await get(`/admin/decisions/${turn.decision.id}`).expect(200)).body.actorEmail).toBe(gone.email);
    await sql.query(`DELETE FROM users WHERE id = $1`, [gone.userId]);
    // Sealed first, so that the list and the single row read the same links.
    await get('/admin/audit-logs/verify').expect(200);

    const rows = await allPages<AuditItem>('/admin/audit-logs', { actorId: gone.userId });
    expect(rows.map((row) => [row.tool, row.status, row.actorEmail])).toEqual([
      ['add_task', 'succeeded', null],
      ['add_task', 'pending', null],
    ]);
    expect((await get(`/admin/audit-logs/${rows[0].seq}`).expect(200)).body).toEqual(rows[0]);
    const decision = await get(`/admin/decisions/${turn.decision.id}`).expect(200);
    expect(decision.body).toEqual(expect.objectContaining({ actorId: gone.userId, actorEmail: null }));
    expect((decision.body.toolCalls as AuditItem[]).map((row) => row.actorEmail)).toEqual([null, null]);
    expect(await allPages('/admin/decisions', { actorId: gone.userId })).toEqual([
      expect.objectContaining({ id: turn.decision.id, actorEmail: null }),
    ]);
    const exported = (await exportText(`?actorId=${gone.userId}`)).text.trimEnd().split('\n');
    expect(exported.map((line) => (JSON.parse(line) as AuditItem).actorEmail)).toEqual([null, null]);
  });

  it("shows a turn's message, intent, outcome and sampling, and a call's error as the person is told it", async () => {
    const dan = await signUpAndIn(sut.http);
    const added = await chat(dan, 'add buy milk');
    const missed = await chat(dan, 'complete task 999', added.conversationId);
    expect(missed.toolCalls).toEqual([expect.objectContaining({ tool: 'complete_task', success: false })]);
    const history = await request(sut.http)
      .get(`/api/${dan.userId}/conversations/${added.conversationId}/messages`)
      .set(dan.auth)
      .expect(200);
    const asked = (history.body.items as { id: string; role: string; content: string }[]).filter((message) => message.role === 'user');
    expect(asked.map((message) => message.content)).toEqual(['add buy milk', 'complete task 999']);

    const expected = {
      [added.decision.id]: { messageId: asked[0].id, intentType: 'CREATE', outcomeCategory: 'SUCCEEDED', temperature: 0, maxTokens: 1024 },
      [missed.decision.id]: { messageId: asked[1].id, intentType: 'COMPLETE', outcomeCategory: 'FAILED', temperature: 0, maxTokens: 1024 },
    };
    const listed = await allPages<{ id: string }>('/admin/decisions', { actorId: dan.userId });
    expect(Object.fromEntries(listed.map((decision) => [decision.id, decision]))).toMatchObject(expected);
    const decision = await get(`/admin/decisions/${missed.decision.id}`).expect(200);
    expect(decision.body).toMatchObject(expected[missed.decision.id]);

    const notFound = "I couldn't find task 999 in your list. Say 'show my tasks' to see their numbers.";
    const calls = decision.body.toolCalls as AuditItem[];
    // A call that names no task there is does nothing: one row, no pending one before it.
    expect(calls.map((row) => [row.tool, row.status, row.errorCode, row.errorMessage, row.result])).toEqual([
      ['complete_task', 'failed', 'TASK_NOT_FOUND', notFound, { number: 999 }],
    ]);
    // The same row in the list, on its own and in the export; a row that succeeded has none.
    expect((await get(`/admin/audit-logs/${calls[0].seq}`).expect(200)).body.errorMessage).toBe(notFound);
    const exported = (await exportText(`?actorId=${dan.userId}`)).text.trimEnd().split('\n');
    expect(exported.map((line) => (JSON.parse(line) as AuditItem).errorMessage)).toEqual([null, null, notFound]);
  });
});
