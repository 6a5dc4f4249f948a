import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { addTasks, taskTitles } from '../factories/tasks';
import type { SignedInUser } from '../support/accounts';
import { type CycleBody, runCycle, startedCampaign } from '../support/outreach';
import { SmtpTestServer } from '../support/smtp-test-server';
import { useTestApp } from '../support/test-app';

const BUILT_IN_RULE = { name: 'destruction-needs-the-person', tools: ['delete_task'], sources: ['chat', 'mcp'], effect: 'ask-person' };
const DELETE_CAP = { name: 'delete-cap', tools: ['delete_task'], effect: 'limit', limit: { max: 20, per: 'person', window: 'day' } };
const EXTERNAL_EMAIL_REVIEW = {
  name: 'external-email-review',
  tools: ['send_email'],
  when: { recipientDomain: { notIn: ['example.com'] } },
  effect: 'ask-reviewer',
  reviewer: { timeoutMinutes: 60, fallback: 'reject' },
};
/** The limit goes first: limits are collected and reading goes on, so the built-in question still decides. */
const RULES = [DELETE_CAP, BUILT_IN_RULE, EXTERNAL_EMAIL_REVIEW];

const INSIDE = { name: 'Inside Lead', linkedinUrl: 'https://www.linkedin.com/in/policy-inside/', email: 'inside.lead@example.com' };
const OUTSIDE = { name: 'Outside Lead', linkedinUrl: 'https://www.linkedin.com/in/policy-outside/', email: 'outside.lead@partner.test' };

interface AuditItem {
  seq: number;
  source: string;
  actorId: string;
  campaignId: string | null;
  tool: string;
  arguments: Record<string, unknown>;
  status: string;
  errorCode: string | null;
  policy: { version: number; rule: string | null; effect: string } | null;
}

interface ChatTurn {
  conversationId: string;
  response: string;
  toolCalls: { tool: string; success: boolean; error?: { code: string } }[];
  pendingConfirmation: { tool: string } | null;
}

interface Draft {
  id: string;
  campaign: { id: string };
  action: string;
  recipient: string;
  createdAt: string;
  expiresAt: string;
}

/**
 * End to end: an admin stores "at most 20 delete_task per person per day" and "send_email
 * outside example.com needs a reviewer" over the admin API; the cap holds over MCP and the chat
 * together, the review over outreach (a real SMTP server for what is sent), and each refused or
 * held call's audit row names the rule and the version.
 */
describe('a stored policy, enforced over chat, MCP and outreach', () => {
  let smtp: SmtpTestServer;
  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
  });
  const clients: Client[] = [];
  const sut = useTestApp({
    env: () => ({ SMTP_URL: smtp.url, SMTP_FROM: 'Bridle <outreach@bridle.test>' }),
    beforeClose: () => Promise.all(clients.map((client) => client.close().catch(() => undefined))),
  });
  afterAll(() => smtp?.stop());
  const admin = sut.user({ admin: true });
  const ada = sut.user();
  const bob = sut.user();
  let version: number;

  beforeAll(async () => {
    const stored = await request(sut.http)
      .put('/admin/policy')
      .set(admin.auth)
      .send({ rules: RULES, reason: 'Cap deletions; a person reviews email outside our domain' })
      .expect(200);
    expect(stored.body).toEqual(expect.objectContaining({ builtIn: false, authorId: admin.userId, rules: RULES }));
    version = (stored.body as { version: number }).version;
    expect(version).toBe(1);
  });

  /** The person's MCP SDK client, which declares elicitation and accepts every question. */
  async function mcpClient(who: SignedInUser): Promise<Client> {
    const client = new Client({ name: 'policy-e2e', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { confirm: true } }));
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', sut.http), { requestInit: { headers: who.auth } }));
    clients.push(client);
    return client;
  }

  const chat = async (who: SignedInUser, message: string, conversationId?: string): Promise<ChatTurn> =>
    (await request(sut.http).post(`/api/${who.userId}/chat`).set(who.auth).send({ message, conversationId }).expect(200)).body as ChatTurn;

  /** "delete task N", the server's question, then "yes delete": the answer to the yes. */
  async function deleteInChat(who: SignedInUser, number: number): Promise<ChatTurn> {
    const asked = await chat(who, `delete task ${number}`);
    expect(asked.pendingConfirmation).toEqual(expect.objectContaining({ tool: 'delete_task' }));
    return chat(who, 'yes delete', asked.conversationId);
  }

  /** Every audit row the query selects, newest first, read as the admin. */
  async function auditRows(query: Record<string, string>): Promise<AuditItem[]> {
    const items: AuditItem[] = [];
    let cursor: string | null = null;
    do {
      const params = new URLSearchParams({ ...query, limit: '100', ...(cursor ? { cursor } : {}) });
      const res = await request(sut.http).get(`/admin/audit-logs?${params.toString()}`).set(admin.auth).expect(200);
      items.push(...(res.body.items as AuditItem[]));
      cursor = res.body.nextCursor as string | null;
    } while (cursor);
    return items;
  }

  it('counts confirmed deletes over MCP and chat against one cap: the 21st is refused on both, naming delete-cap and version 1', async () => {
    await addTasks(sut.http, ada, ...Array.from({ length: 21 }, (_, i) => `Task ${i + 1}`));
    const client = await mcpClient(ada);

    // Twenty deletes, one by one, each said yes to: odd numbers over MCP, even ones in the chat.
    for (let number = 1; number <= 20; number++) {
      if (number % 2 === 1) {
        const deleted = await client.callTool({ name: 'delete_task', arguments: { number } });
        expect({ number, isError: deleted.isError ?? false }).toEqual({ number, isError: false });
      } else {
        const confirmed = await deleteInChat(ada, number);
        expect({ number, toolCalls: confirmed.toolCalls }).toEqual({
          number,
          toolCalls: [expect.objectContaining({ tool: 'delete_task', success: true })],
        });
      }
    }
    expect(await taskTitles(sut.http, ada)).toEqual(['Task 21']);

    // The 21st, over MCP then in the chat: refused before anyone is asked (the dry run finds the cap full), and the task stays.
    const overMcp = await client.callTool({ name: 'delete_task', arguments: { number: 21 } });
    expect(overMcp).toMatchObject({
      isError: true,
      structuredContent: { code: 'POLICY_LIMIT_REACHED', details: { rule: 'delete-cap', version, max: 20, window: 'day' } },
    });
    const inChat = await chat(ada, 'delete task 21');
    expect(inChat.pendingConfirmation ?? null).toBeNull();
    expect(inChat.toolCalls).toEqual([
      expect.objectContaining({ tool: 'delete_task', success: false, error: expect.objectContaining({ code: 'POLICY_LIMIT_REACHED' }) }),
    ]);
    expect(await taskTitles(sut.http, ada)).toEqual(['Task 21']);

    // Bob's deletes count on his own counter, over MCP and in the chat.
    await addTasks(sut.http, bob, 'Buy milk', 'Dentist');
    const bobs = await mcpClient(bob);
    expect((await bobs.callTool({ name: 'delete_task', arguments: { number: 1 } })).isError ?? false).toBe(false);
    expect((await deleteInChat(bob, 2)).toolCalls).toEqual([expect.objectContaining({ tool: 'delete_task', success: true })]);
    expect(await taskTitles(sut.http, bob)).toEqual([]);

    // The audit log, read by the admin: every call of Ada's ran under version 1.
    const rows = await auditRows({ tool: 'delete_task', actorId: ada.userId });
    for (const row of rows) expect({ seq: row.seq, version: row.policy?.version }).toEqual({ seq: row.seq, version });
    const refused = rows.filter((row) => row.status === 'rejected');
    // Each row holds the call as it came: the dry run that found the cap full, before any question.
    const task21 = { number: 21 };
    expect(refused.map((row) => [row.source, row.arguments, row.errorCode, row.policy])).toEqual([
      ['chat', task21, 'POLICY_LIMIT_REACHED', { version, rule: 'delete-cap', effect: 'limit', items: 1 }],
      ['mcp', task21, 'POLICY_LIMIT_REACHED', { version, rule: 'delete-cap', effect: 'limit', items: 1 }],
    ]);
    const succeeded = rows.filter((row) => row.status === 'succeeded');
    expect(succeeded).toHaveLength(20);
    expect(succeeded.filter((row) => row.source === 'mcp')).toHaveLength(10);
    expect(succeeded.filter((row) => row.source === 'chat')).toHaveLength(10);
    for (const row of succeeded) {
      expect({ seq: row.seq, policy: row.policy }).toEqual({
        seq: row.seq,
        policy: { version, rule: 'destruction-needs-the-person', effect: 'ask-person', items: 1 },
      });
    }
    // Bob's went through under the same version.
    const bobsRows = await auditRows({ tool: 'delete_task', actorId: bob.userId, status: 'succeeded' });
    expect(bobsRows.map((row) => [row.source, row.policy?.version])).toEqual([
      ['chat', version],
      ['mcp', version],
    ]);
  });

  it('sends outreach email to example.com and holds the email to another domain for review, for 60 minutes, naming external-email-review', async () => {
    const campaignId = await startedCampaign(sut.http, ada, 'Policy outreach', [INSIDE, OUTSIDE]);

    const outcomes: CycleBody[] = [];
    let before = Date.now();
    let after = before;
    for (let i = 0; ; i++) {
      if (i === 20) throw new Error(`no end after 20 cycles: ${JSON.stringify(outcomes.at(-1))}`);
      const started = Date.now();
      const outcome = await runCycle(sut.http, ada, campaignId);
      if (outcome.status === 'awaiting_review') [before, after] = [started, Date.now()];
      outcomes.push(outcome);
      if (outcome.status === 'idle' || outcome.status === 'campaign_completed') break;
    }
    const emails = outcomes.filter((outcome) => outcome.proposal?.action === 'send_email');
    expect(emails.map((outcome) => [outcome.proposal!.args.to, outcome.status])).toEqual(
      expect.arrayContaining([
        [INSIDE.email, 'completed'],
        [OUTSIDE.email, 'awaiting_review'],
      ]),
    );
    expect(emails).toHaveLength(2);
    // Only the one to example.com reached the SMTP server.
    expect(smtp.outreach.map((mail) => mail.envelope.to)).toEqual([[INSIDE.email]]);

    // Held in Ada's review queue, with the rule's time to answer.
    const queue = await request(sut.http)
      .get(`/api/${ada.userId}/outreach/drafts?status=awaiting_review&limit=100`)
      .set(ada.auth)
      .expect(200);
    const drafts = (queue.body as { items: Draft[] }).items.filter((draft) => draft.campaign.id === campaignId);
    expect(drafts.map((draft) => [draft.action, draft.recipient])).toEqual([['send_email', OUTSIDE.email]]);
    const expiresAt = Date.parse(drafts[0].expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 60 * 60_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(after + 60 * 60_000 + 1000);

    const rows = await auditRows({ tool: 'send_email', campaignId });
    const held = rows.filter((row) => row.arguments.to === OUTSIDE.email);
    expect(held.map((row) => [row.source, row.tool, row.status, row.policy])).toEqual([
      ['outreach', 'send_email', 'confirmation_required', { version, rule: 'external-email-review', effect: 'ask-reviewer', items: 1 }],
    ]);
    const sent = rows.filter((row) => row.arguments.to === INSIDE.email && row.status === 'succeeded');
    expect(sent.map((row) => [row.source, row.policy])).toEqual([['outreach', { version, rule: null, effect: 'allow', items: 1 }]]);
  });
});
