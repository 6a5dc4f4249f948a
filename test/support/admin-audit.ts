import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { chatTurn } from '../factories/conversations';
import { signUpAndIn, type SignedInUser } from './accounts';
import { signUpAdmin } from './admins';
import { leads, runCycle, startedCampaign } from './outreach';
import { type AppUnderTest, useTestApp } from './test-app';
import { asText } from './text-body';

/** A row of the admin audit API, as it lists, shows and exports it. */

export interface AuditItem {
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

export const ITEM_KEYS = [
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

/**
 * The admin read side of the audit log, for the describe that builds it: the app, an admin,
 * four people, and what chat, MCP and outreach wrote for them before the tests (`seeded`: the
 * ids the filters are tried with). The people and `sql` are set once it has started; the
 * reads are arrow fields, to be destructured.
 */
export class AuditedApp {
  readonly clients: Client[] = [];
  readonly sut: AppUnderTest;
  /** What the seeding produced: the ids the filters are tried with. */
  readonly seeded = { conversationId: '', chatDecisionId: '', campaignId: '', cycleDecisionId: '' };
  sql!: DataSource;
  mcpUrl!: URL;
  admin!: SignedInUser;
  ada!: SignedInUser;
  bob!: SignedInUser;
  carol!: SignedInUser;
  eve!: SignedInUser;

  constructor() {
    this.sut = useTestApp({ beforeClose: () => Promise.all(this.clients.map((client) => client.close())) });
    beforeAll(() => this.seed());
  }

  private async seed(): Promise<void> {
    this.sql = this.sut.app.get(DataSource);
    this.mcpUrl = new URL('/mcp', this.sut.http);
    this.admin = await signUpAdmin(this.sut);
    [this.ada, this.bob, this.carol, this.eve] = [
      await signUpAndIn(this.sut.http),
      await signUpAndIn(this.sut.http),
      await signUpAndIn(this.sut.http),
      await signUpAndIn(this.sut.http),
    ];

    // A chat turn for Ada, MCP calls for Bob (one refused), outreach cycles for Carol.
    const turn = await this.chat(this.ada, 'add buy milk');
    expect(turn.toolCalls).toEqual([expect.objectContaining({ tool: 'add_task', success: true })]);
    this.seeded.conversationId = turn.conversationId;
    this.seeded.chatDecisionId = turn.decision.id;
    await this.chat(this.ada, "what's left?", this.seeded.conversationId);
    // A delete put to the person (a dry run: confirmation_required), and the same recorded by an
    // earlier version under the old name, as such rows stay in the chain.
    await this.chat(this.ada, 'delete task 1', this.seeded.conversationId);
    await this.sql.query(
      `INSERT INTO audit_log (source, actor_id, conversation_id, tool, arguments, security_events, status, duration_ms)
     VALUES ('chat', $1, $2, 'delete_task', '{"number":1}', '[]', 'confirmation_requested', 3)`,
      [this.ada.userId, this.seeded.conversationId],
    );
    const bobs = await this.mcpClient(this.bob);
    await bobs.callTool({ name: 'add_task', arguments: { title: 'Call the plumber' } });
    await bobs.callTool({ name: 'list_tasks', arguments: {} });
    expect(await bobs.callTool({ name: 'add_task', arguments: { title: 7 } })).toMatchObject({ isError: true });
    this.seeded.campaignId = await startedCampaign(this.sut.http, this.carol, 'Admin audit', leads(2, 'audit'));
    for (let i = 0; i < 3; i++) {
      const cycle = await runCycle(this.sut.http, this.carol, this.seeded.campaignId);
      expect(cycle.status).toBe('completed');
      this.seeded.cycleDecisionId = cycle.decisionId!;
    }
  }

  readonly chat = (user: SignedInUser, message: string, conversationId?: string) => chatTurn(this.sut.http, user, message, conversationId);

  readonly mcpClient = async (user: SignedInUser): Promise<Client> => {
    const client = new Client({ name: 'admin-audit-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(this.mcpUrl, { requestInit: { headers: user.auth } }));
    this.clients.push(client);
    return client;
  };

  readonly get = (path: string, user: SignedInUser = this.admin) => request(this.sut.http).get(path).set(user.auth);

  /** Every page of a list route, following nextCursor. */
  readonly allPages = async <T>(path: string, query: Record<string, string>, limit = 7): Promise<T[]> => {
    const items: T[] = [];
    let cursor: string | null = null;
    do {
      const params = new URLSearchParams({ ...query, limit: String(limit), ...(cursor ? { cursor } : {}) });
      const res = await this.get(`${path}?${params.toString()}`).expect(200);
      items.push(...(res.body.items as T[]));
      cursor = res.body.nextCursor as string | null;
    } while (cursor);
    return items;
  };

  readonly exportText = async (query: string): Promise<{ status: number; type: string; text: string }> => {
    const res = await asText(this.get(`/admin/audit-logs/export${query}`));
    return { status: res.status, type: String(res.headers['content-type']), text: res.body as string };
  };

  readonly headSeq = async (): Promise<number> => {
    const [row] = await this.sql.query<{ head: string | null }[]>(`SELECT max(seq) AS head FROM audit_log`);
    return Number(row.head ?? 0);
  };

  readonly seqsWhere = async (condition: string, params: unknown[], head: number): Promise<number[]> => {
    const rows = await this.sql.query<{ seq: string }[]>(
      `SELECT seq FROM audit_log WHERE ${condition} AND seq <= $${params.length + 1} ORDER BY seq DESC`,
      [...params, head],
    );
    return rows.map((row) => Number(row.seq));
  };
}
