import { randomUUID } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import { type DataSource } from 'typeorm';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { leads, runCycle, startedCampaign } from '../support/outreach';
import { AuditedApp, type AuditItem, ITEM_KEYS } from '../support/admin-audit';

/** The admin read side of the audit log, over HTTP, with chat, MCP and outreach writing to it. */
describe('admin audit API', () => {
  const audit = new AuditedApp();
  const { sut, seeded, chat, mcpClient, get, allPages, exportText, headSeq, seqsWhere } = audit;
  let sql: DataSource, admin: SignedInUser, ada: SignedInUser, bob: SignedInUser, carol: SignedInUser, eve: SignedInUser;
  beforeAll(() => {
    ({ sql, admin, ada, bob, carol, eve } = audit);
  });

  it('refuses every /admin route to a non-admin with 403, and to a caller without a token with 401', async () => {
    const NO_SUCH = '00000000-0000-4000-8000-000000000000';
    const concrete: Record<string, string> = {
      'GET /admin/audit-logs': '/admin/audit-logs',
      'GET /admin/audit-logs/export': '/admin/audit-logs/export',
      'GET /admin/audit-logs/verify': '/admin/audit-logs/verify',
      'GET /admin/audit-logs/checkpoints': '/admin/audit-logs/checkpoints',
      'GET /admin/audit-logs/proofs/inclusion': '/admin/audit-logs/proofs/inclusion',
      'GET /admin/audit-logs/proofs/consistency': '/admin/audit-logs/proofs/consistency',
      'GET /admin/audit-logs/:seq/receipt': '/admin/audit-logs/1/receipt',
      'GET /admin/audit-logs/:seq': '/admin/audit-logs/1',
      'GET /admin/decisions': '/admin/decisions',
      'GET /admin/decisions/:id': `/admin/decisions/${seeded.chatDecisionId}`,
      'GET /admin/policy': '/admin/policy',
      'PUT /admin/policy': '/admin/policy',
      'GET /admin/policy/versions': '/admin/policy/versions',
      'GET /admin/policy/versions/:version': '/admin/policy/versions/0',
      'POST /admin/policy/dry-run': '/admin/policy/dry-run',
      'GET /admin/review-queue': '/admin/review-queue',
      'DELETE /admin/erasures/accounts/:userId': `/admin/erasures/accounts/${ada.userId}`,
      'DELETE /admin/erasures/leads/:campaignId/:leadId':
        '/admin/erasures/leads/00000000-0000-4000-8000-000000000000/00000000-0000-4000-8000-000000000000',
      'POST /admin/erasures/email': '/admin/erasures/email',
      'POST /admin/review-queue/:draftId/approve': '/admin/review-queue/00000000-0000-4000-8000-000000000000/approve',
      'POST /admin/review-queue/:draftId/reject': '/admin/review-queue/00000000-0000-4000-8000-000000000000/reject',
      'GET /admin/users/:userId/budget': `/admin/users/${ada.userId}/budget`,
      'PUT /admin/users/:userId/budget': `/admin/users/${ada.userId}/budget`,
      'GET /admin/webhooks': '/admin/webhooks',
      'POST /admin/webhooks': '/admin/webhooks',
      'GET /admin/webhooks/:webhookId': `/admin/webhooks/${NO_SUCH}`,
      'PATCH /admin/webhooks/:webhookId': `/admin/webhooks/${NO_SUCH}`,
      'DELETE /admin/webhooks/:webhookId': `/admin/webhooks/${NO_SUCH}`,
      'POST /admin/webhooks/:webhookId/secret': `/admin/webhooks/${NO_SUCH}/secret`,
      'GET /admin/webhooks/:webhookId/deliveries': `/admin/webhooks/${NO_SUCH}/deliveries`,
    };
    // Every route the server mounts under /admin, so that a new one cannot be left open.
    expect(
      mountedRoutes(sut.app.getHttpAdapter().getInstance())
        .filter((r) => r.includes(' /admin'))
        .sort(),
    ).toEqual(Object.keys(concrete).sort());
    const before = await headSeq();
    for (const [route, path] of Object.entries(concrete)) {
      const method = route.split(' ')[0].toLowerCase() as 'get' | 'put' | 'post' | 'patch' | 'delete';
      const refused = await request(sut.http)[method](`${path}?source=nonsense`).set(eve.auth).send({ rules: [] });
      expect({ path, status: refused.status, body: refused.body }).toEqual({
        path,
        status: 403,
        body: expect.objectContaining({ statusCode: 403, code: 'AUTH.FORBIDDEN' }),
      });
      const anonymous = await request(sut.http)[method](path);
      expect({ path, status: anonymous.status, code: anonymous.body.code }).toEqual({ path, status: 401, code: 'AUTH.UNAUTHENTICATED' });
    }
    expect(await headSeq()).toBe(before);
  });

  it('records every admin read in the log itself, as source admin with the filters as arguments', async () => {
    const since = await headSeq();
    await get(`/admin/audit-logs?source=mcp&limit=3`).expect(200);
    await get(`/admin/audit-logs/${since}`).expect(200);
    await get(`/admin/audit-logs/${since + 1_000_000}`).expect(404);
    await get(`/admin/audit-logs/verify`).expect(200);
    await get(`/admin/decisions?actorId=${ada.userId}`).expect(200);
    await get(`/admin/decisions/${seeded.chatDecisionId}`).expect(200);
    expect((await exportText(`?source=chat`)).status).toBe(200);

    const reads = await allPages<AuditItem>('/admin/audit-logs', { source: 'admin', actorId: admin.userId });
    const after = reads.filter((row) => row.seq > since).reverse();
    expect(after.map((row) => [row.tool, row.status, row.arguments])).toEqual([
      ['admin.audit_logs.list', 'succeeded', { source: 'mcp', limit: 3, cursor: null }],
      ['admin.audit_logs.get', 'succeeded', { seq: since }],
      ['admin.audit_logs.get', 'failed', { seq: since + 1_000_000 }],
      ['admin.audit_logs.verify', 'succeeded', {}],
      ['admin.decisions.list', 'succeeded', { actorId: ada.userId, limit: 20, cursor: null }],
      ['admin.decisions.get', 'succeeded', { id: seeded.chatDecisionId }],
      ['admin.audit_logs.export', 'pending', { source: 'chat' }],
      ['admin.audit_logs.export', 'succeeded', { source: 'chat' }],
      // The reads made by allPages itself, before its last page.
      ...after.slice(8).map(() => ['admin.audit_logs.list', 'succeeded', expect.objectContaining({ source: 'admin' })]),
    ]);
    expect(after[2].errorCode).toBe('AUDIT.ROW_NOT_FOUND');
    expect(after[3].result).toEqual(expect.objectContaining({ verified: true }));
    expect(after[7]).toEqual(expect.objectContaining({ pendingSeq: after[6].seq, result: { rows: expect.any(Number) } }));
    for (const row of after) {
      expect(row).toEqual(expect.objectContaining({ source: 'admin', actorId: admin.userId, actorEmail: admin.email }));
    }
  });

  it('shows chat turns, MCP calls and outreach actions, in the item shape', async () => {
    // Sealed first, so that every row carries its link (the sealer runs every half second anyway).
    await get('/admin/audit-logs/verify').expect(200);
    const items = await allPages<AuditItem>('/admin/audit-logs', {}, 100);
    expect(Object.keys(items[0]).sort()).toEqual([...ITEM_KEYS].sort());
    expect(items.map((row) => row.seq)).toEqual([...items.map((row) => row.seq)].sort((a, b) => b - a));

    const chatAdd = items.find((row) => row.source === 'chat' && row.tool === 'add_task' && row.status === 'succeeded');
    expect(chatAdd).toEqual(
      expect.objectContaining({
        actorId: ada.userId,
        actorEmail: ada.email,
        conversationId: seeded.conversationId,
        decisionId: seeded.chatDecisionId,
        arguments: { title: 'Buy milk' },
        durationMs: expect.any(Number),
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        prevHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    );
    expect(items.filter((row) => row.source === 'mcp' && row.actorId === bob.userId).map((row) => [row.tool, row.status])).toEqual(
      expect.arrayContaining([
        ['add_task', 'succeeded'],
        ['list_tasks', 'succeeded'],
        ['add_task', 'rejected'],
      ]),
    );
    // Each row's actor email is its actor's, whoever else's rows are on the page.
    const emails = new Map([admin, ada, bob, carol].map((user) => [user.userId, user.email]));
    for (const row of items)
      expect({ seq: row.seq, actorEmail: row.actorEmail }).toEqual({ seq: row.seq, actorEmail: emails.get(row.actorId) });
    const outreach = items.filter((row) => row.source === 'outreach');
    expect(outreach.length).toBeGreaterThanOrEqual(6);
    for (const row of outreach) {
      expect(row).toEqual(
        expect.objectContaining({
          actorId: carol.userId,
          actorEmail: carol.email,
          campaignId: seeded.campaignId,
          outreachTaskId: expect.any(String),
        }),
      );
    }
    const outcome = outreach.find((row) => row.pendingSeq !== null)!;
    expect(outreach.find((row) => row.seq === outcome.pendingSeq)).toEqual(expect.objectContaining({ status: 'pending' }));

    const one = await get(`/admin/audit-logs/${chatAdd!.seq}`).expect(200);
    expect(one.body).toEqual(chatAdd);
  });

  it('filters by each filter, alone and together, across pages', async () => {
    const rows = await sql.query<{ created_at: string }[]>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at FROM audit_log
       WHERE source = 'mcp' ORDER BY seq`,
    );
    const from = rows[0].created_at;
    const to = new Date(Date.parse(rows[rows.length - 1].created_at) + 1).toISOString();
    const cases: [Record<string, string>, string, unknown[]][] = [
      [{ actorId: ada.userId }, 'actor_id = $1', [ada.userId]],
      [{ source: 'chat' }, 'source = $1', ['chat']],
      [{ source: 'mcp' }, 'source = $1', ['mcp']],
      [{ source: 'outreach' }, 'source = $1', ['outreach']],
      [{ tool: 'add_task' }, 'tool = $1', ['add_task']],
      [{ status: 'rejected' }, 'status = $1', ['rejected']],
      [{ status: 'pending' }, 'status = $1', ['pending']],
      [{ status: 'confirmation_required' }, "status IN ('confirmation_required', 'confirmation_requested')", []],
      [{ conversationId: seeded.conversationId }, 'conversation_id = $1', [seeded.conversationId]],
      [{ campaignId: seeded.campaignId }, 'campaign_id = $1', [seeded.campaignId]],
      [{ decisionId: seeded.cycleDecisionId }, 'decision_id = $1', [seeded.cycleDecisionId]],
      [{ from, to }, 'created_at >= $1 AND created_at < $2', [from, to]],
      [
        { source: 'mcp', actorId: bob.userId, tool: 'add_task', status: 'succeeded' },
        "source = 'mcp' AND actor_id = $1 AND tool = 'add_task' AND status = 'succeeded'",
        [bob.userId],
      ],
    ];
    for (const [query, condition, params] of cases) {
      const head = await headSeq();
      const items = await allPages<AuditItem>('/admin/audit-logs', query, 3);
      const expected = await seqsWhere(condition, params, head);
      expect({ query, seqs: items.map((row) => row.seq).filter((seq) => seq <= head) }).toEqual({ query, seqs: expected });
      expect({ query, found: expected.length > 0 }).toEqual({ query, found: true });
    }
  });

  it('lists decisions, newest first, filtered and paged, and shows one with its tool calls', async () => {
    const mine = await allPages<{ id: string; actorId: string; actorEmail: string | null; conversationId: string | null; status: string }>(
      '/admin/decisions',
      {
        actorId: ada.userId,
      },
      1,
    );
    expect(mine.map((d) => [d.actorId, d.actorEmail])).toEqual(Array(3).fill([ada.userId, ada.email]));
    expect(mine[2]).toEqual(
      expect.objectContaining({
        id: seeded.chatDecisionId,
        conversationId: seeded.conversationId,
        decisionType: 'INVOKE_TOOL',
        status: 'completed',
      }),
    );
    const cycles = await allPages<{ id: string; campaignId: string }>('/admin/decisions', { campaignId: seeded.campaignId }, 2);
    expect(cycles).toHaveLength(3);
    expect(cycles[0]).toEqual(
      expect.objectContaining({ id: seeded.cycleDecisionId, campaignId: seeded.campaignId, outreachTaskId: expect.any(String) }),
    );
    expect(new Set(cycles.map((d) => d.id)).size).toBe(3);
    expect(await allPages('/admin/decisions', { conversationId: seeded.conversationId })).toHaveLength(3);
    expect(await allPages('/admin/decisions', { decisionId: seeded.chatDecisionId })).toEqual([
      expect.objectContaining({ id: seeded.chatDecisionId }),
    ]);
    expect(await allPages('/admin/decisions', { status: 'error' })).toEqual([]);
    expect(await allPages('/admin/decisions', { from: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);
    expect(await allPages('/admin/decisions', { to: new Date(Date.now() + 60_000).toISOString() })).toHaveLength(6);

    const cycle = await get(`/admin/decisions/${seeded.cycleDecisionId}`).expect(200);
    expect(cycle.body).toEqual(
      expect.objectContaining({
        id: seeded.cycleDecisionId,
        campaignId: seeded.campaignId,
        actorId: carol.userId,
        actorEmail: carol.email,
      }),
    );
    const calls = cycle.body.toolCalls as AuditItem[];
    expect(calls.map((row) => row.status)).toEqual(['pending', 'succeeded']);
    expect(calls[1].pendingSeq).toBe(calls[0].seq);
    for (const row of calls) {
      expect(row).toEqual(expect.objectContaining({ decisionId: seeded.cycleDecisionId, source: 'outreach', actorEmail: carol.email }));
      expect(Object.keys(row).sort()).toEqual([...ITEM_KEYS].sort());
    }

    const turn = await get(`/admin/decisions/${seeded.chatDecisionId}`).expect(200);
    expect(turn.body).toEqual(expect.objectContaining({ actorId: ada.userId, actorEmail: ada.email }));
    expect((turn.body.toolCalls as AuditItem[]).map((row) => [row.tool, row.status, row.actorEmail])).toEqual([
      ['add_task', 'pending', ada.email],
      ['add_task', 'succeeded', ada.email],
    ]);
    const missing = await get(`/admin/decisions/${randomUUID()}`);
    expect([missing.status, missing.body.code]).toEqual([404, 'AUDIT.DECISION_NOT_FOUND']);
  });

  it.each([
    ['/admin/audit-logs?actorId=nope', /actorId must be a UUID/],
    ['/admin/audit-logs?actorEmail=nope', /actorEmail must be an email address/],
    [`/admin/audit-logs/export?actorEmail=${'a'.repeat(250)}%40example.com`, /actorEmail must be at most 254 characters/],
    ['/admin/audit-logs?conversationId=1', /conversationId must be a UUID/],
    ['/admin/audit-logs?campaignId=x', /campaignId must be a UUID/],
    ['/admin/audit-logs?decisionId=x', /decisionId must be a UUID/],
    ['/admin/audit-logs?source=email', /source must be one of/],
    ['/admin/audit-logs?status=done', /status must be one of/],
    ['/admin/audit-logs?tool=drop%20table', /tool must be a tool name/],
    ['/admin/audit-logs?from=yesterday', /from must be an ISO 8601 date-time/],
    ['/admin/audit-logs?to=2025-13-01', /to must be an ISO 8601 date-time/],
    ['/admin/audit-logs?limit=0', /limit must not be less than 1/],
    ['/admin/audit-logs?limit=101', /limit must not be greater than 100/],
    ['/admin/audit-logs?cursor=garbage', /cursor is not one this API returned/],
    ['/admin/audit-logs?userId=x', /userId: unknown field/],
    ['/admin/audit-logs/export?source=email', /source must be one of/],
    ['/admin/audit-logs/export?limit=5', /limit: unknown field/],
    ['/admin/audit-logs/abc', /seq must be a whole number/],
    ['/admin/decisions?status=running', /status must be one of/],
    ['/admin/decisions?tool=add_task', /tool: unknown field/],
    [`/admin/decisions?cursor=${Buffer.from('["x","y"]').toString('base64url')}`, /cursor is not one this API returned/],
    ['/admin/decisions/123', /id must be a UUID/],
  ])('answers %s with 400 naming the field', async (path, message) => {
    const res = await get(path);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: expect.stringMatching(/^VALIDATION\./) });
    expect(res.body.message).toMatch(message);
  });

  it('keeps cursor pages stable while 4 writers append: no duplicates, no gaps', async () => {
    const first = await get('/admin/audit-logs?limit=3').expect(200);
    const top = (first.body.items as AuditItem[])[0].seq;
    const seen: number[] = (first.body.items as AuditItem[]).map((row) => row.seq);
    let cursor = first.body.nextCursor as string | null;

    const [dan, fay] = [await signUpAndIn(sut.http), await signUpAndIn(sut.http)];
    const campaign = await startedCampaign(sut.http, dan, 'Concurrent', leads(15, 'concurrent'));
    const mcp = await mcpClient(fay);
    const headBeforeWriters = await headSeq();
    let stop = false;
    const writer = async (step: (i: number) => Promise<unknown>) => {
      for (let i = 0; i < 40 && !stop; i++) await step(i);
    };
    const writers = Promise.all([
      writer((i) => chat(ada, `add concurrent chore ${i}`)),
      writer((i) => chat(dan, `add another chore ${i}`)),
      writer((i) => mcp.callTool({ name: 'add_task', arguments: { title: `mcp chore ${i}` } })),
      writer(() => runCycle(sut.http, dan, campaign)),
    ]);
    try {
      while (cursor) {
        const page = await get(`/admin/audit-logs?limit=3&cursor=${cursor}`).expect(200);
        seen.push(...(page.body.items as AuditItem[]).map((row) => row.seq));
        cursor = page.body.nextCursor as string | null;
      }
    } finally {
      stop = true;
      await writers;
    }

    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
    expect(seen).toEqual(await seqsWhere('TRUE', [], top));
    // The writers appended from every source, and did so before the last page was read
    // (that read's own row is the admin's newest).
    const appended = await sql.query<{ source: string; before_last_page: boolean }[]>(
      `SELECT source, bool_or(seq < (SELECT max(seq) FROM audit_log WHERE source = 'admin' AND actor_id = $2)) AS before_last_page
       FROM audit_log WHERE seq > $1 AND source <> 'admin' GROUP BY source ORDER BY source`,
      [headBeforeWriters, admin.userId],
    );
    expect(appended.map((row) => row.source)).toEqual(['chat', 'mcp', 'outreach']);
    expect(appended.some((row) => row.before_last_page)).toBe(true);
  });
});

/** `METHOD /path` for each route registered on the Express app. */
function mountedRoutes(app: Express): string[] {
  const stack = (app as unknown as { router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] } }).router.stack;
  return stack
    .filter((layer) => layer.route)
    .flatMap((layer) =>
      Object.keys(layer.route!.methods)
        .filter((method) => method !== '_all')
        .map((method) => `${method.toUpperCase()} ${layer.route!.path}`),
    );
}
