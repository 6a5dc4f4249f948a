import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import type { PolicyVerdict } from '../../src/domain/policy/policy';
import type { ChatTurnBody } from '../factories/conversations';
import { addTasks, taskTitles } from '../factories/tasks';
import type { SignedInUser } from '../support/accounts';
import { leads, runCycle, startedCampaign } from '../support/outreach';
import { useTestApp } from '../support/test-app';

/** An audit row as the admin reads it, as far as this file reads it. */
type AuditItem = Readonly<{ source: string; status: string; errorCode: string | null; policy: PolicyVerdict | null }>;

/** A chat turn's answer, with what this file reads beyond ChatTurnBody. */
type ChatTurn = ChatTurnBody & Readonly<{ finishReason: string; pendingConfirmation: { id: string; tool: string } | null }>;

/** The rule every policy holds: in the chat, a destructive call is put to the person whatever the stored rules allow. */
const CHAT_PROMISE = 'chat-asks-before-destruction';

/**
 * One stored policy, met at every door: the tools server (an MCP SDK client over HTTP, and the
 * chat's agent in process), the REST task routes, the chat turn and outreach. Each door does
 * with each effect what docs/policies.md says: an MCP client deletes unasked under an allow,
 * while the chat still asks (a rule every policy holds); a rule asking the person asks by
 * elicitation over MCP and lets a REST request (the person's own yes) run; a deny refuses
 * everywhere, each in its door's words.
 */
describe('one policy, enforced at every door', () => {
  const clients: Client[] = [];
  const sut = useTestApp({ beforeClose: () => Promise.all(clients.map((client) => client.close().catch(() => undefined))) });
  const admin = sut.user({ admin: true });
  const ada = sut.user();
  const erin = sut.user();
  const carol = sut.user();
  const dave = sut.user();
  let version: number;

  beforeAll(async () => {
    const rules = [
      { name: 'erin-is-asked', tools: ['delete_task'], people: [erin.email], effect: 'ask-person' },
      { name: 'deletes-run', tools: ['delete_task'], sources: ['mcp', 'chat'], effect: 'allow' },
      { name: 'deletes-ask', tools: ['delete_task'], effect: 'ask-person' },
      { name: 'no-api-renames', tools: ['update_task'], sources: ['api'], effect: 'deny', reason: 'Renames go through the assistant.' },
      { name: 'no-mcp-completions', tools: ['complete_task'], sources: ['mcp'], effect: 'deny', reason: 'Complete tasks yourself.' },
      { name: 'carol-rests', tools: ['chat_turn'], people: [carol.email], effect: 'deny', reason: 'The assistant is off for you.' },
      { name: 'dave-is-asked', tools: ['chat_turn'], people: [dave.email], effect: 'ask-person' },
      { name: 'no-profile-scrapes', tools: ['linkedin_scrape_profile'], effect: 'deny', reason: 'No profile look-ups this week.' },
    ];
    const stored = await request(sut.http).put('/admin/policy').set(admin.auth).send({ rules, reason: 'Every door' }).expect(200);
    version = (stored.body as { version: number }).version;
  });

  /** The person's MCP SDK client: it declares elicitation, counts each question and accepts it. */
  async function mcpClient(who: SignedInUser): Promise<{ client: Client; questions: string[] }> {
    const questions: string[] = [];
    const client = new Client({ name: 'policy-doors-e2e', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, (asked) => {
      questions.push(asked.params.message);
      return { action: 'accept', content: { confirm: true } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', sut.http), { requestInit: { headers: who.auth } }));
    clients.push(client);
    return { client, questions };
  }

  const chat = async (who: SignedInUser, body: Record<string, unknown>): Promise<ChatTurn> =>
    (await request(sut.http).post(`/api/${who.userId}/chat`).set(who.auth).send(body).expect(200)).body as ChatTurn;

  async function auditRows(query: Record<string, string>): Promise<AuditItem[]> {
    const params = new URLSearchParams({ ...query, limit: '100' });
    const res = await request(sut.http).get(`/admin/audit-logs?${params.toString()}`).set(admin.auth).expect(200);
    return (res.body as { items: AuditItem[] }).items.reverse();
  }

  it('lets an MCP client delete unasked under an allow for MCP, audited once; the chat still asks first, as the product promises', async () => {
    await addTasks(sut.http, ada, 'Buy milk', 'Dentist');
    const { client, questions } = await mcpClient(ada);

    const deleted = await client.callTool({ name: 'delete_task', arguments: { number: 1 } });
    expect(deleted.isError ?? false).toBe(false);
    expect(questions).toEqual([]);
    expect(await taskTitles(sut.http, ada)).toEqual(['Dentist']);
    // One call: its pending row and its outcome, under the admin's rule; no dry run, no question.
    expect((await auditRows({ tool: 'delete_task', actorId: ada.userId })).map((row) => [row.source, row.status, row.policy])).toEqual([
      ['mcp', 'pending', { version, rule: 'deletes-run', effect: 'allow', items: 1 }],
      ['mcp', 'succeeded', { version, rule: 'deletes-run', effect: 'allow', items: 1 }],
    ]);

    // In the chat the same rule allows it, and the person is asked all the same: nothing goes before their yes.
    const asked = await chat(ada, { message: 'delete task 2' });
    expect(asked.pendingConfirmation).toEqual(expect.objectContaining({ tool: 'delete_task' }));
    expect(asked.response).toMatch(/'Dentist'/);
    expect(await taskTitles(sut.http, ada)).toEqual(['Dentist']);
    const yes = await chat(ada, { message: 'yes delete', conversationId: asked.conversationId });
    expect(yes.toolCalls).toEqual([expect.objectContaining({ tool: 'delete_task', success: true })]);
    expect(await taskTitles(sut.http, ada)).toEqual([]);
    const inChat = (await auditRows({ tool: 'delete_task', actorId: ada.userId, source: 'chat' })).map((row) => [row.status, row.policy]);
    expect(inChat).toEqual([
      ['confirmation_required', { version, rule: CHAT_PROMISE, effect: 'ask-person', items: 1 }],
      ['pending', { version, rule: CHAT_PROMISE, effect: 'ask-person', items: 1 }],
      ['succeeded', { version, rule: CHAT_PROMISE, effect: 'ask-person', items: 1 }],
    ]);
  });

  it('asks by elicitation over MCP where a rule asks the person, and refuses a denied call naming the rule', async () => {
    await addTasks(sut.http, erin, 'Call mum', 'Water plants');
    const { client, questions } = await mcpClient(erin);
    expect((await client.callTool({ name: 'delete_task', arguments: { number: 1 } })).isError ?? false).toBe(false);
    expect(questions).toEqual([expect.stringMatching(/'Call mum'/)]);

    const refused = await client.callTool({ name: 'complete_task', arguments: { number: 2 } });
    expect(refused).toMatchObject({
      isError: true,
      structuredContent: { code: 'POLICY_DENIED', details: { rule: 'no-mcp-completions', version, reason: 'Complete tasks yourself.' } },
    });
    expect(await taskTitles(sut.http, erin)).toEqual(['Water plants']);
  });

  it('runs a REST request a rule would ask the person about (it is their own yes), and refuses a denied one with 403', async () => {
    await addTasks(sut.http, carol, 'Old name', 'Gone soon');
    await request(sut.http).delete(`/api/${carol.userId}/tasks/2`).set(carol.auth).expect(204);
    const refused = await request(sut.http).patch(`/api/${carol.userId}/tasks/1`).set(carol.auth).send({ title: 'New name' }).expect(403);
    expect(refused.body).toMatchObject({
      code: 'POLICY.DENIED',
      message: "This is not allowed here: Renames go through the assistant. (Policy rule 'no-api-renames'.)",
    });
    expect(await taskTitles(sut.http, carol)).toEqual(['Old name']);
  });

  it('refuses a chat turn a rule denies before any model call, and asks before one a rule puts to the person', async () => {
    const off = await chat(carol, { message: 'list my tasks' });
    expect(off).toMatchObject({ finishReason: 'policy_denied', toolCalls: [], pendingConfirmation: null });
    expect(off.response).toBe("The assistant is off for you. (Policy rule 'carol-rests'.) Nothing was sent to the assistant.");

    const asked = await chat(dave, { message: 'add water the plants' });
    expect(asked).toMatchObject({ finishReason: 'confirmation_required', pendingConfirmation: { tool: 'chat_turn' } });
    expect(await taskTitles(sut.http, dave)).toEqual([]);
    const yes = await chat(dave, { message: 'yes', conversationId: asked.conversationId, confirmationId: asked.pendingConfirmation!.id });
    expect(yes.toolCalls).toEqual([expect.objectContaining({ tool: 'add_task', success: true })]);
    expect(await taskTitles(sut.http, dave)).toEqual(['Water the plants']);
  });

  it("cancels an outreach action a rule denies, with the rule's reason, sending nothing", async () => {
    const campaignId = await startedCampaign(sut.http, ada, 'Denied look-ups', leads(1, 'doors'));
    const outcome = await runCycle(sut.http, ada, campaignId);
    expect(outcome).toMatchObject({
      status: 'failed',
      code: 'POLICY_DENIED',
      proposal: { action: 'linkedin_scrape_profile' },
      task: { status: 'Cancelled' },
      execution: null,
    });
    expect(outcome.message).toBe("This is not allowed here: No profile look-ups this week. (Policy rule 'no-profile-scrapes'.)");
    const rows = await auditRows({ tool: 'linkedin_scrape_profile', campaignId });
    expect(rows.map((row) => [row.source, row.status, row.errorCode, row.policy?.rule])).toEqual([
      ['outreach', 'rejected', 'POLICY_DENIED', 'no-profile-scrapes'],
    ]);
  });
});
