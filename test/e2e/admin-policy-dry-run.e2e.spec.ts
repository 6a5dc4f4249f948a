import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AuditLog } from '../../src/application/audit/ports/audit-log.port';
import { chatTurn } from '../factories/conversations';
import { BROKEN_LINKS, STRAY_ROWS } from '../support/audit-chain';
import { useTestApp } from '../support/test-app';

interface Report {
  versionInForce: number;
  calls: number;
  limit: number;
  from: string | null;
  to: string | null;
  changed: number;
  effects: { now: Record<string, number>; candidate: Record<string, number> };
  changes: {
    from: string;
    to: string;
    rule: string | null;
    calls: number;
    examples: { seq: number; at: string; source: string; tool: string; actorId: string; actorEmail: string | null }[];
  }[];
  notes: string[];
}

/** A deny for deletions and a cap of 2 task additions an hour per person: the candidate tried on the recorded calls. */
const CANDIDATE = [
  { name: 'no-deletes', tools: ['delete_task'], effect: 'deny', reason: 'Nobody deletes tasks this week.' },
  { name: 'add-cap', tools: ['add_task'], effect: 'limit', limit: { max: 2, per: 'person', window: 'hour' } },
];

/** POST /admin/policy/dry-run over real recorded calls (chat and MCP), and what it leaves behind: its own read, nothing else. */
describe('admin policy dry run', () => {
  const clients: Client[] = [];
  const sut = useTestApp({ beforeClose: () => Promise.all(clients.map((client) => client.close())) });
  const admin = sut.user({ admin: true });
  const ada = sut.user();
  let sql: DataSource;

  beforeAll(async () => {
    sql = sut.app.get(DataSource);
    // Ada, over MCP: four additions (a pending and an outcome row each), a list, and a delete
    // the policy in force puts to the person: two rows, its dry run (to word the question) and
    // its refusal (this client cannot be asked), so two calls as the log records them.
    const client = new Client({ name: 'policy-dry-run-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', sut.http), { requestInit: { headers: ada.auth } }));
    clients.push(client);
    for (const title of ['Buy milk', 'Call mum', 'Pay rent', 'Water plants']) {
      expect(await client.callTool({ name: 'add_task', arguments: { title } })).not.toMatchObject({ isError: true });
    }
    await client.callTool({ name: 'list_tasks', arguments: {} });
    expect(await client.callTool({ name: 'delete_task', arguments: { number: 1 } })).toMatchObject({
      isError: true,
      structuredContent: { code: 'CONFIRMATION_REQUIRED' },
    });
    // And in the chat: one more addition, and a delete put to her as a question (a dry run).
    const turn = await chatTurn(sut.http, ada, 'add buy bread');
    expect(turn.toolCalls).toEqual([expect.objectContaining({ tool: 'add_task', success: true })]);
    await chatTurn(sut.http, ada, 'delete task 1', turn.conversationId);
  });

  const dryRun = (body: unknown) =>
    request(sut.http)
      .post('/admin/policy/dry-run')
      .set(admin.auth)
      .send(body as object);

  /** What a dry run could write: audit rows, their chain, the limits' counters. */
  async function written(): Promise<{
    rows: { seq: number; source: string; tool: string }[];
    counters: number;
    broken: unknown[];
    strays: unknown[];
  }> {
    const rows = await sql.query<{ seq: number; source: string; tool: string }[]>(
      `SELECT seq::int AS seq, source, tool FROM audit_log ORDER BY seq`,
    );
    const [{ counters }] = await sql.query<{ counters: number }[]>(
      `SELECT count(*)::int AS counters FROM rate_limits WHERE key LIKE 'policy:%'`,
    );
    return { rows, counters, broken: await sql.query(BROKEN_LINKS), strays: await sql.query(STRAY_ROWS) };
  }

  it('reports exactly what the candidate changes, and writes nothing but its own read', async () => {
    const calls = await sql.query<{ seq: number; created_at: Date; tool: string }[]>(
      `SELECT seq::int AS seq, created_at, tool FROM audit_log WHERE source IN ('chat', 'mcp') AND pending_seq IS NULL ORDER BY seq`,
    );
    expect(calls.map((row) => row.tool).sort()).toEqual([
      'add_task',
      'add_task',
      'add_task',
      'add_task',
      'add_task',
      'delete_task',
      'delete_task',
      'delete_task',
      'list_tasks',
    ]);
    const before = await written();

    const res = await dryRun({ rules: CANDIDATE }).expect(200);
    const report = res.body as Report;

    expect(report).toMatchObject({
      versionInForce: 0,
      calls: 9,
      limit: 1000,
      from: calls[0].created_at.toISOString(),
      to: calls[calls.length - 1].created_at.toISOString(),
      // The deletions are denied instead of put to Ada; her third to fifth additions are over the cap.
      changed: 6,
      effects: {
        now: { allow: 6, 'ask-person': 3, 'ask-reviewer': 0, limit: 0, deny: 0 },
        candidate: { allow: 3, 'ask-person': 0, 'ask-reviewer': 0, limit: 3, deny: 3 },
      },
    });
    const additions = calls.filter((row) => row.tool === 'add_task').map((row) => row.seq);
    const deletions = calls.filter((row) => row.tool === 'delete_task').map((row) => row.seq);
    expect(
      report.changes.map(({ from, to, rule, calls: n, examples }) => ({ from, to, rule, n, seqs: examples.map((e) => e.seq) })),
    ).toEqual([
      { from: 'allow', to: 'limit', rule: 'add-cap', n: 3, seqs: additions.slice(2).reverse() },
      { from: 'ask-person', to: 'deny', rule: 'no-deletes', n: 3, seqs: [...deletions].reverse() },
    ]);
    expect(report.changes[1].examples[0]).toEqual({
      seq: deletions[deletions.length - 1],
      at: expect.any(String),
      source: 'chat',
      tool: 'delete_task',
      actorId: ada.userId,
      actorEmail: ada.email,
      now: { effect: 'ask-person', rule: 'destruction-needs-the-person' },
      candidate: { effect: 'deny', rule: 'no-deletes' },
    });
    // No call's arguments, anywhere in the report.
    expect(JSON.stringify(report)).not.toMatch(/Buy milk|Water plants|"arguments"/);
    expect(report.notes.join(' ')).toContain('personal data');

    // It writes nothing: the audit rows, the chain and the counters are as they were.
    expect(await written()).toEqual(before);
  });

  it('refuses a malformed candidate with every problem, in the body the policy routes share, and writes nothing', async () => {
    const before = await written();

    const res = await dryRun({
      rules: [
        { name: 'x', tools: ['no_such_tool'], effect: 'deny', reason: 'No.' },
        { name: 'cap', tools: ['add_task'], effect: 'limit', limit: { max: 0, per: 'person', window: 'day' } },
        { name: 'not-eve', tools: ['add_task'], people: ['eve@nowhere.example'], effect: 'deny', reason: 'No.' },
      ],
    }).expect(400);

    expect(res.body).toMatchObject({
      statusCode: 400,
      code: 'POLICY.INVALID',
      message: expect.stringMatching(/^The policy has 2 problems/),
    });
    expect(res.body.problems).toEqual([
      { position: 1, rule: 'x', field: 'rules[1].tools[0]', message: expect.stringContaining("'no_such_tool' is no tool's name") },
      { position: 2, rule: 'cap', field: 'rules[2].limit.max', message: 'must be a whole number from 1 to 1000000' },
    ]);
    // An email that is no account's, once the rest reads.
    const unknown = await dryRun({
      rules: [{ name: 'not-eve', tools: ['add_task'], people: ['eve@nowhere.example'], effect: 'deny', reason: 'No.' }],
    }).expect(400);
    expect(unknown.body.problems).toEqual([
      { position: 1, rule: 'not-eve', field: 'rules[1].people[0]', message: "'eve@nowhere.example' is no account's email" },
    ]);
    expect(await written()).toEqual(before);
  });

  it('takes an admin only, and a limit from 1 to 10 000', async () => {
    await request(sut.http).post('/admin/policy/dry-run').set(ada.auth).send({ rules: CANDIDATE }).expect(403);
    const over = await dryRun({ rules: CANDIDATE, limit: 10_001 }).expect(400);
    expect(over.body).toMatchObject({ code: 'VALIDATION.FAILED', message: 'limit must be from 1 to 10000' });
    await dryRun({ rules: CANDIDATE, extra: true }).expect(400);
  });

  it('reads 1 000 recorded calls', async () => {
    // Appended through the app's own audit log, as the executor appends a call it runs with no
    // effect (one row each), concurrently: group commit writes them in batches.
    const auditLog = sut.app.get(AuditLog);
    await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        auditLog.record(
          {
            source: i % 2 === 0 ? 'mcp' : 'chat',
            actorId: ada.userId,
            tool: i % 10 === 0 ? 'delete_task' : 'list_tasks',
            arguments: { number: i },
            securityEvents: [],
          },
          { status: i % 10 === 0 ? 'rejected' : 'succeeded', durationMs: 1 },
        ),
      ),
    );

    const report = (await dryRun({ rules: CANDIDATE }).expect(200)).body as Report;

    expect(report).toMatchObject({ calls: 1000, limit: 1000, changed: 100 });
    expect(report.changes).toEqual([expect.objectContaining({ from: 'ask-person', to: 'deny', rule: 'no-deletes', calls: 100 })]);
    expect(report.changes[0].examples).toHaveLength(20);
    const fewer = (await dryRun({ rules: CANDIDATE, limit: 10 }).expect(200)).body as Report;
    expect(fewer).toMatchObject({ calls: 10, limit: 10 });
  });
});
