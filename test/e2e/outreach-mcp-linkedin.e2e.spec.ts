import request from 'supertest';
import { DataSource } from 'typeorm';
import { IDEMPOTENCY_KEY_META, SESSION_META } from '../../src/infrastructure/outreach/linkedin/mcp-linkedin-channel';
import { FakeLinkedInMcpServer, type RecordedCall } from '../fixtures/fake-linkedin-mcp-server';
import { type CycleBody, runCycle, startedCampaign } from '../support/outreach';
import { useTestApp } from '../support/test-app';

const SCRAPE = 'linkedin_scrape_profile';
const SEND = 'linkedin_send_message';

/** What `refresh_session` fetches: without the sandbox, secrets come from OUTREACH_SECRET_<NAME>, read at each fetch. */
const SESSION = 'li_at=e2e-fresh-session';

const GRACE = 'https://www.linkedin.com/in/grace-hopper/';
const ALAN = 'https://www.linkedin.com/in/alan-turing/';
/** The fake answers messages to this profile with SESSION_EXPIRED until a call carries a session. */
const KATHERINE = 'https://www.linkedin.com/in/stale-session-katherine/';
/** The fake answers every call about this profile with "Profile not found". */
const MARGARET = 'https://www.linkedin.com/in/not-found-margaret/';

const LEADS = [
  { name: 'Grace Hopper', linkedinUrl: GRACE },
  { name: 'Alan Turing', linkedinUrl: ALAN },
  { name: 'Katherine Johnson', linkedinUrl: KATHERINE },
  { name: 'Margaret Hamilton', linkedinUrl: MARGARET },
];

const TEMPLATE = 'Hi {{firstName}}, as {{title}} at {{company}} you may like our 2-page playbook. May I send it? {{signature}}';

/** The template filled with the lead's first name and the title and company the MCP server's look-up returned. */
const plannedMessage = (firstName: string): string =>
  `Hi ${firstName}, as Countess at Analytical Engines Ltd you may like our 2-page playbook. May I send it? Ines of Bridle Labs`;

interface ActionRow {
  idempotency_key: string;
  task_id: string;
  action: string;
  channel: string;
  args: Record<string, unknown>;
  status: string;
  pending_audit_seq: string;
}

interface AuditRow {
  seq: string;
  pending_seq: string | null;
  outreach_task_id: string | null;
  tool: string;
  arguments: Record<string, unknown>;
  status: string;
  error_code: string | null;
  result: Record<string, unknown> | null;
}

interface TaskItem {
  id: string;
  leadLinkedinUrl: string;
  type: string;
  status: string;
  attempts: number;
  lastError: string | null;
  sent: { channel: string; recipient: string; subject: string | null; text: string } | null;
}

/**
 * A campaign worked to its end over HTTP, its LinkedIn steps through an MCP server: the real
 * app with OUTREACH_MCP_URL, connected over Streamable HTTP to a real MCP SDK server on a
 * local port (test/fixtures/fake-linkedin-mcp-server.ts), and the offline planner. The
 * campaign runs once, in beforeAll; each test reads what it left.
 */
describe('an outreach campaign through the MCP LinkedIn channel', () => {
  let linkedin: FakeLinkedInMcpServer;
  beforeAll(async () => {
    process.env.OUTREACH_SECRET_LINKEDIN_SESSION = SESSION;
    linkedin = await FakeLinkedInMcpServer.start();
  });
  const sut = useTestApp({ env: () => ({ OUTREACH_MCP_URL: linkedin.url }) });
  const user = sut.user();
  afterAll(async () => {
    await linkedin?.stop();
    delete process.env.OUTREACH_SECRET_LINKEDIN_SESSION;
  });
  let campaignId: string;
  let cycles: CycleBody[];
  let actions: ActionRow[];
  let audit: AuditRow[];
  let tasks: TaskItem[];

  const campaignPath = (): string => `/api/${user.userId}/campaigns/${campaignId}`;
  const callsAbout = (profileUrl: string): RecordedCall[] => linkedin.calls.filter((call) => call.args.profileUrl === profileUrl);
  const keyOf = (call: RecordedCall): unknown => call.meta?.[IDEMPOTENCY_KEY_META];
  const actionOf = (call: RecordedCall): ActionRow | undefined => actions.find((action) => action.idempotency_key === keyOf(call));
  const auditRow = (seq: string): AuditRow | undefined => audit.find((row) => row.seq === seq);
  const outcomeRow = (pendingSeq: string): AuditRow | undefined => audit.find((row) => row.pending_seq === pendingSeq);
  const tasksOf = (profileUrl: string): TaskItem[] => tasks.filter((task) => task.leadLinkedinUrl === profileUrl);

  /** Today's slots used by `kind`, as the campaign's page shows them: [campaign scope, owner scope]. */
  async function used(kind: string): Promise<[number, number]> {
    const res = await request(sut.http).get(campaignPath()).set(user.auth).expect(200);
    const usage = (res.body as { usage: { kinds: Record<string, { campaign: { used: number }; owner: { used: number } }> } }).usage;
    return [usage.kinds[kind].campaign.used, usage.kinds[kind].owner.used];
  }

  beforeAll(async () => {
    campaignId = await startedCampaign(
      sut.http,
      user,
      { name: 'Pioneers', brief: { senderName: 'Ines', signature: 'Ines of Bridle Labs' }, templates: { linkedinMessage: TEMPLATE } },
      LEADS,
    );

    cycles = [];
    while (cycles.at(-1)?.status !== 'campaign_completed') {
      if (cycles.length === 30) throw new Error(`no campaign_completed after 30 cycles: ${JSON.stringify(cycles.at(-1))}`);
      cycles.push(await runCycle(sut.http, user, campaignId));
    }

    const sql = sut.app.get(DataSource);
    actions = await sql.query<ActionRow[]>(
      `SELECT idempotency_key, task_id, action, channel, args, status, pending_audit_seq FROM outreach_actions WHERE campaign_id = $1`,
      [campaignId],
    );
    audit = await sql.query<AuditRow[]>(
      `SELECT seq, pending_seq, outreach_task_id, tool, arguments, status, error_code, result
         FROM audit_log WHERE campaign_id = $1 ORDER BY seq`,
      [campaignId],
    );
    const res = await request(sut.http).get(`${campaignPath()}/tasks?limit=100`).set(user.auth).expect(200);
    tasks = (res.body as { items: TaskItem[] }).items;
  });

  it('calls a profile look-up, then a message, per lead, with the arguments each cycle planned', () => {
    expect(callsAbout(GRACE).map((call) => call.tool)).toEqual([SCRAPE, SEND]);
    expect(callsAbout(ALAN).map((call) => call.tool)).toEqual([SCRAPE, SEND]);
    expect(callsAbout(MARGARET).map((call) => call.tool)).toEqual([SCRAPE, SEND]);
    // The message refused for want of a session, then the same message again.
    expect(callsAbout(KATHERINE).map((call) => call.tool)).toEqual([SCRAPE, SEND, SEND]);
    expect(linkedin.calls).toHaveLength(9);

    // Each call is one cycle's checked proposal, under that cycle's idempotency key.
    const acted = cycles.filter((cycle) => cycle.execution?.idempotencyKey);
    expect(acted.map((cycle) => cycle.execution!.idempotencyKey)).toEqual(linkedin.calls.map(keyOf));
    expect(linkedin.calls.map((call) => ({ tool: call.tool, args: call.args }))).toEqual(
      acted.map((cycle) => ({ tool: cycle.proposal!.action, args: cycle.proposal!.args })),
    );
    for (const call of callsAbout(GRACE)) {
      expect(call.args).toEqual(
        call.tool === SCRAPE
          ? { profileUrl: GRACE, fields: ['name', 'headline', 'title', 'company', 'location'] }
          : { profileUrl: GRACE, message: plannedMessage('Grace') },
      );
    }
  });

  it('keeps one action row per call, through the mcp channel, and no key reaches the server twice', () => {
    const keys = linkedin.calls.map(keyOf);
    expect(new Set(keys).size).toBe(keys.length);
    expect(actions).toHaveLength(linkedin.calls.length);
    for (const call of linkedin.calls) {
      expect(actionOf(call)).toEqual(expect.objectContaining({ action: call.tool, channel: 'mcp', args: call.args }));
    }
  });

  it('audits each action before the call, naming it with its arguments, and its outcome after', () => {
    for (const call of linkedin.calls) {
      const action = actionOf(call)!;
      expect(auditRow(action.pending_audit_seq)).toEqual(
        expect.objectContaining({ tool: call.tool, arguments: call.args, status: 'pending', outreach_task_id: action.task_id }),
      );
      expect(outcomeRow(action.pending_audit_seq)).toEqual(
        expect.objectContaining({ tool: call.tool, arguments: call.args, status: action.status }),
      );
    }
    const outcomes = audit
      .filter((row) => row.status !== 'pending')
      .map((row) => `${row.tool} ${row.status}${row.error_code ? ` ${row.error_code}` : ''}`)
      .sort();
    expect(outcomes).toEqual([
      'complete_campaign succeeded',
      `${SCRAPE} failed TARGET_NOT_FOUND`,
      `${SCRAPE} succeeded`,
      `${SCRAPE} succeeded`,
      `${SCRAPE} succeeded`,
      `${SEND} failed SESSION_EXPIRED`,
      `${SEND} failed TARGET_NOT_FOUND`,
      `${SEND} succeeded`,
      `${SEND} succeeded`,
      `${SEND} succeeded`,
      'refresh_session succeeded',
    ]);
  });

  it('sends each reachable lead the planned message once: the text the server got is the one its audit row and task record', () => {
    for (const [profileUrl, firstName] of [
      [GRACE, 'Grace'],
      [ALAN, 'Alan'],
      [KATHERINE, 'Katherine'],
    ]) {
      const accepted = callsAbout(profileUrl).filter((call) => call.tool === SEND && actionOf(call)?.status === 'succeeded');
      expect(accepted).toHaveLength(1);
      const [sent] = accepted;
      expect(sent.args).toEqual({ profileUrl, message: plannedMessage(firstName) });
      const outcome = outcomeRow(actionOf(sent)!.pending_audit_seq)!;
      expect(outcome.arguments.message).toBe(sent.args.message);
      expect(outcome.result).toEqual({ messageId: expect.stringMatching(/^msg-/) });

      const task = tasksOf(profileUrl).find((item) => item.type === 'SendLinkedInMessage')!;
      expect(task).toEqual(expect.objectContaining({ status: 'Completed', lastError: null }));
      expect(task.sent).toEqual({ channel: 'linkedin', recipient: profileUrl, subject: null, text: sent.args.message });
    }
  });

  it('counts a slot for each look-up and message the server took, for the campaign and its owner', async () => {
    // Three of each: the refused calls (not found, expired session) gave their slots back.
    expect(await used('profile_lookup')).toEqual([3, 3]);
    expect(await used('linkedin_message')).toEqual([3, 3]);
    expect(await used('email')).toEqual([0, 0]);
  });

  it('fails each step of a lead the server does not find at its first attempt, sending nothing', () => {
    expect(tasksOf(MARGARET).map((task) => [task.type, task.status, task.lastError, task.attempts, task.sent])).toEqual([
      ['ScrapeProfile', 'Failed', 'TARGET_NOT_FOUND', 1, null],
      ['SendLinkedInMessage', 'Failed', 'TARGET_NOT_FOUND', 1, null],
    ]);
    for (const call of callsAbout(MARGARET)) {
      expect(actionOf(call)!.status).toBe('failed');
      expect(cycles.find((cycle) => cycle.execution?.idempotencyKey === keyOf(call))).toEqual(
        expect.objectContaining({ status: 'failed', code: 'CHANNEL_ERROR' }),
      );
    }
  });

  it('refreshes the session the server asks for, then retries the message with it; the session is never recorded', () => {
    const [, refused, sent] = callsAbout(KATHERINE);
    expect(refused.meta?.[SESSION_META]).toBeUndefined();
    expect(actionOf(refused)!.status).toBe('failed');
    expect(sent.args).toEqual(refused.args);
    expect(sent.meta?.[SESSION_META]).toBe(SESSION);

    const message = tasksOf(KATHERINE).find((task) => task.type === 'SendLinkedInMessage')!;
    // Its message attempts, and the refresh between them, are rows of this task, in this order.
    expect(
      audit
        .filter((row) => row.outreach_task_id === message.id && row.status !== 'pending')
        .map((row) => [row.tool, row.status, row.error_code]),
    ).toEqual([
      [SEND, 'failed', 'SESSION_EXPIRED'],
      ['refresh_session', 'succeeded', null],
      [SEND, 'succeeded', null],
    ]);
    expect(message).toEqual(expect.objectContaining({ status: 'Completed', attempts: 3 }));

    // The session reaches the server from the refresh on, and with every call after it.
    const refresh = audit.find((row) => row.tool === 'refresh_session' && row.status === 'pending')!;
    for (const call of linkedin.calls) {
      const after = Number(actionOf(call)!.pending_audit_seq) > Number(refresh.seq);
      expect({ key: keyOf(call), session: call.meta?.[SESSION_META] }).toEqual({ key: keyOf(call), session: after ? SESSION : undefined });
    }
    expect(JSON.stringify(audit)).not.toContain(SESSION);
  });

  it('completes the campaign, after which no cycle reaches the server', async () => {
    expect(cycles.at(-1)!.proposal).toEqual(expect.objectContaining({ action: 'complete_campaign', args: { campaignId } }));
    const before = linkedin.calls.length;

    const res = await request(sut.http).post(`${campaignPath()}/cycles`).set(user.auth).expect(409);

    expect(res.body).toEqual(expect.objectContaining({ code: 'OUTREACH.CAMPAIGN_STATE' }));
    expect(linkedin.calls).toHaveLength(before);
  });
});
