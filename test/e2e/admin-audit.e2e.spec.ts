import { randomUUID } from 'node:crypto';
import { get as httpGet } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Express } from 'express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { chatTurn } from '../factories/conversations';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { signUpAdmin } from '../support/admins';
import { leads, runCycle, startedCampaign } from '../support/outreach';
import { useTestApp } from '../support/test-app';
import { asText } from '../support/text-body';

interface AuditItem {
  seq: number;
  createdAt: string;
  source: string;
  actorId: string;
  actorEmail: string | null;
  conversationId: string | null;
  campaignId: string | null;
  outreachTaskId: string | null;
  decisionId: string | null;
  tool: string;
  arguments: unknown;
  status: string;
  result: unknown;
  errorCode: string | null;
  errorMessage: string | null;
  durationMs: number | null;
  securityEvents: unknown[];
  pendingSeq: number | null;
  hash: string;
  prevHash: string;
  chain: 'linked' | 'queued' | 'outside';
  erasedBy: string | null;
  erasedAt: string | null;
}

const ITEM_KEYS = [
  'seq',
  'createdAt',
  'source',
  'actorId',
  'actorEmail',
  'conversationId',
  'campaignId',
  'outreachTaskId',
  'decisionId',
  'tool',
  'arguments',
  'status',
  'result',
  'errorCode',
  'errorMessage',
  'durationMs',
  'securityEvents',
  'pendingSeq',
  'policy',
  'hash',
  'prevHash',
  'chain',
  'erasedBy',
  'erasedAt',
];
const SECRETS = ['sk-abcdefghijklmnop1234', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTYifQ.c2lnbmF0dXJlLXBhcnQ', 'hunter2-very-secret'];

/** The admin read side of the audit log, over HTTP, with chat, MCP and outreach writing to it. */
describe('admin audit API', () => {
  const clients: Client[] = [];
  const sut = useTestApp({ beforeClose: () => Promise.all(clients.map((client) => client.close())) });
  let sql: DataSource;
  let mcpUrl: URL;
  let admin: SignedInUser;
  let ada: SignedInUser;
  let bob: SignedInUser;
  let carol: SignedInUser;
  let eve: SignedInUser;
  /** What the seeding produced: the ids the filters are tried with. */
  const seeded = { conversationId: '', chatDecisionId: '', campaignId: '', cycleDecisionId: '' };

  beforeAll(async () => {
    sql = sut.app.get(DataSource);
    mcpUrl = new URL('/mcp', sut.http);
    admin = await signUpAdmin(sut);
    [ada, bob, carol, eve] = [
      await signUpAndIn(sut.http),
      await signUpAndIn(sut.http),
      await signUpAndIn(sut.http),
      await signUpAndIn(sut.http),
    ];

    // A chat turn for Ada, MCP calls for Bob (one refused), outreach cycles for Carol.
    const turn = await chat(ada, 'add buy milk');
    expect(turn.toolCalls).toEqual([expect.objectContaining({ tool: 'add_task', success: true })]);
    seeded.conversationId = turn.conversationId;
    seeded.chatDecisionId = turn.decision.id;
    await chat(ada, "what's left?", seeded.conversationId);
    // A delete put to the person (a dry run: confirmation_required), and the same recorded by an
    // earlier version under the old name, as such rows stay in the chain.
    await chat(ada, 'delete task 1', seeded.conversationId);
    await sql.query(
      `INSERT INTO audit_log (source, actor_id, conversation_id, tool, arguments, security_events, status, duration_ms)
       VALUES ('chat', $1, $2, 'delete_task', '{"number":1}', '[]', 'confirmation_requested', 3)`,
      [ada.userId, seeded.conversationId],
    );
    const bobs = await mcpClient(bob);
    await bobs.callTool({ name: 'add_task', arguments: { title: 'Call the plumber' } });
    await bobs.callTool({ name: 'list_tasks', arguments: {} });
    expect(await bobs.callTool({ name: 'add_task', arguments: { title: 7 } })).toMatchObject({ isError: true });
    seeded.campaignId = await startedCampaign(sut.http, carol, 'Admin audit', leads(2, 'audit'));
    for (let i = 0; i < 3; i++) {
      const cycle = await runCycle(sut.http, carol, seeded.campaignId);
      expect(cycle.status).toBe('completed');
      seeded.cycleDecisionId = cycle.decisionId!;
    }
  });

  const chat = (user: SignedInUser, message: string, conversationId?: string) => chatTurn(sut.http, user, message, conversationId);

  async function mcpClient(user: SignedInUser): Promise<Client> {
    const client = new Client({ name: 'admin-audit-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: user.auth } }));
    clients.push(client);
    return client;
  }

  const get = (path: string, user: SignedInUser = admin) => request(sut.http).get(path).set(user.auth);

  /** Every page of a list route, following nextCursor. */
  async function allPages<T>(path: string, query: Record<string, string>, limit = 7): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | null = null;
    do {
      const params = new URLSearchParams({ ...query, limit: String(limit), ...(cursor ? { cursor } : {}) });
      const res = await get(`${path}?${params.toString()}`).expect(200);
      items.push(...(res.body.items as T[]));
      cursor = res.body.nextCursor as string | null;
    } while (cursor);
    return items;
  }

  async function exportText(query: string): Promise<{ status: number; type: string; text: string }> {
    const res = await asText(get(`/admin/audit-logs/export${query}`));
    return { status: res.status, type: String(res.headers['content-type']), text: res.body as string };
  }

  async function headSeq(): Promise<number> {
    const [row] = await sql.query<{ head: string | null }[]>(`SELECT max(seq) AS head FROM audit_log`);
    return Number(row.head ?? 0);
  }

  async function seqsWhere(condition: string, params: unknown[], head: number): Promise<number[]> {
    const rows = await sql.query<{ seq: string }[]>(
      `SELECT seq FROM audit_log WHERE ${condition} AND seq <= $${params.length + 1} ORDER BY seq DESC`,
      [...params, head],
    );
    return rows.map((row) => Number(row.seq));
  }

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
