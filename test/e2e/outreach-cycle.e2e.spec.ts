import request from 'supertest';
import { DataSource } from 'typeorm';
import { signUpAndIn } from '../support/accounts';
import { type CycleBody, leads, runCycle, startedCampaign } from '../support/outreach';
import { useTestApp } from '../support/test-app';

/** The outreach controller over HTTP, on the offline planner and the sandbox channels. */
describe('outreach cycles', () => {
  // A short action deadline, so the hanging-channel cases end quickly.
  const sut = useTestApp({
    env: { OUTREACH_ACTION_TIMEOUT_MS: '400', OUTREACH_SWEEP_INTERVAL_MS: '200', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' },
  });
  let sql: DataSource;
  beforeAll(() => {
    sql = sut.app.get(DataSource);
  });

  /** Today's slots used by `kind`, as the campaign's page shows them: [campaign scope, owner scope]. */
  async function used(user: Awaited<ReturnType<typeof signUpAndIn>>, campaignId: string, kind: string): Promise<[number, number]> {
    const res = await request(sut.http).get(`/api/${user.userId}/campaigns/${campaignId}`).set(user.auth).expect(200);
    const usage = (res.body as { usage: { kinds: Record<string, { campaign: { used: number }; owner: { used: number } }> } }).usage;
    return [usage.kinds[kind].campaign.used, usage.kinds[kind].owner.used];
  }

  interface TaskItem {
    id: string;
    type: string;
    status: string;
    lastError: string | null;
    output: Record<string, unknown> | null;
    sent: { channel: string; recipient: string; subject: string | null; text: string } | null;
  }

  /** The campaign's tasks as its owner reads them over HTTP. */
  async function tasksOf(user: Awaited<ReturnType<typeof signUpAndIn>>, campaignId: string): Promise<TaskItem[]> {
    const res = await request(sut.http).get(`/api/${user.userId}/campaigns/${campaignId}/tasks?limit=100`).set(user.auth).expect(200);
    return (res.body as { items: TaskItem[] }).items;
  }

  /** What the sandbox channels received for a task, read from their own tables by the action's idempotency key. */
  async function channelReceived(taskId: string): Promise<TaskItem['sent']> {
    const [row] = await sql.query<{ channel: string; recipient: string; subject: string | null; text: string }[]>(
      `SELECT 'linkedin' AS channel, s.profile_url AS recipient, NULL AS subject, s.message AS text
         FROM outreach_actions a JOIN sandbox_linkedin_actions s ON s.idempotency_key = a.idempotency_key
         WHERE a.task_id = $1 AND s.kind = 'message'
       UNION ALL
       SELECT 'email', o.to_address, o.subject, o.body
         FROM outreach_actions a JOIN sandbox_email_outbox o ON o.idempotency_key = a.idempotency_key WHERE a.task_id = $1`,
      [taskId],
    );
    return row ?? null;
  }

  async function runUntil(user: Awaited<ReturnType<typeof signUpAndIn>>, campaignId: string, stop: (c: CycleBody) => boolean, max = 200) {
    const outcomes: CycleBody[] = [];
    for (let i = 0; i < max; i++) {
      const outcome = await runCycle(sut.http, user, campaignId);
      outcomes.push(outcome);
      if (stop(outcome)) return outcomes;
    }
    throw new Error(`no stop after ${max} cycles: ${JSON.stringify(outcomes.at(-1))}`);
  }

  it('runs a campaign of 5 leads to completion, every action audited before it ran', async () => {
    const user = await signUpAndIn(sut.http);
    const campaignId = await startedCampaign(sut.http, user, 'CTO Outreach Q1', leads(5, 'seed'));

    const outcomes = await runUntil(user, campaignId, (c) => c.status === 'campaign_completed');

    // Per lead: look-up, message, email; then the model completes the campaign.
    expect(outcomes.map((c) => c.status)).toEqual([...Array(15).fill('completed'), 'campaign_completed']);
    expect(outcomes.filter((c) => c.proposal?.action === 'linkedin_scrape_profile')).toHaveLength(5);
    expect(outcomes.filter((c) => c.proposal?.action === 'linkedin_send_message')).toHaveLength(5);
    expect(outcomes.filter((c) => c.proposal?.action === 'send_email')).toHaveLength(5);
    expect(outcomes.at(-1)!.proposal).toEqual(expect.objectContaining({ action: 'complete_campaign', args: { campaignId } }));
    for (const outcome of outcomes.slice(0, 15)) {
      expect(outcome.verification).toEqual({ verified: true, detail: expect.any(String) });
      expect(outcome.execution).toEqual(
        expect.objectContaining({ status: 'succeeded', idempotencyKey: expect.stringMatching(/^[0-9a-f]{64}$/) }),
      );
    }

    // Every executed action has a pending audit row, and its outcome row comes after it.
    const actions = await sql.query<{ action: string; pending: string; outcome: string | null; pending_status: string }[]>(
      `SELECT a.action, a.pending_audit_seq AS pending, p.status AS pending_status,
         (SELECT o.seq FROM audit_log o WHERE o.pending_seq = a.pending_audit_seq) AS outcome
       FROM outreach_actions a JOIN audit_log p ON p.seq = a.pending_audit_seq WHERE a.campaign_id = $1`,
      [campaignId],
    );
    expect(actions).toHaveLength(15);
    for (const action of actions) {
      expect(action.pending_status).toBe('pending');
      expect(Number(action.outcome)).toBeGreaterThan(Number(action.pending));
    }
    const [campaign] = await sql.query<{ status: string }[]>(`SELECT status FROM campaigns WHERE id = $1`, [campaignId]);
    expect(campaign.status).toBe('completed');
    const decisions = await sql.query<{ n: string }[]>(`SELECT count(*) AS n FROM decision_logs WHERE campaign_id = $1`, [campaignId]);
    expect(Number(decisions[0].n)).toBe(16);
    // The sandbox got each message once.
    const sent = await sql.query<{ n: string; calls: string }[]>(
      `SELECT count(*) AS n, max(calls) AS calls FROM sandbox_linkedin_actions WHERE profile_url LIKE 'https://www.linkedin.com/in/seed-%'`,
    );
    expect(sent[0]).toEqual({ n: '10', calls: 1 });

    // Each message and email task shows its owner exactly what its channel received; a look-up sent nothing.
    const tasks = await tasksOf(user, campaignId);
    expect(tasks.map((task) => [task.type, task.status])).toEqual(
      Array(5)
        .fill([
          ['ScrapeProfile', 'Completed'],
          ['SendLinkedInMessage', 'Completed'],
          ['SendEmail', 'Completed'],
        ])
        .flat(),
    );
    for (const task of tasks) {
      if (task.type === 'ScrapeProfile') {
        expect({ type: task.type, sent: task.sent }).toEqual({ type: task.type, sent: null });
        continue;
      }
      const received = await channelReceived(task.id);
      expect(received).toEqual({
        channel: task.type === 'SendEmail' ? 'email' : 'linkedin',
        recipient: expect.any(String),
        subject: task.type === 'SendEmail' ? expect.any(String) : null,
        text: expect.stringMatching(/\S/),
      });
      expect(task.sent).toEqual(received);
      // `sent` is given on its own, not again inside the output.
      expect(task.output).toEqual({ messageId: expect.any(String) });
    }
    // Leads imported together share their import time, so their order is the ids': compare as sets.
    expect(
      tasks
        .filter((task) => task.type === 'SendEmail')
        .map((task) => task.sent!.recipient)
        .sort(),
    ).toEqual(leads(5, 'seed').map((lead) => lead.email));
  });

  it('executes exactly 50 profile look-ups a day; the next cycle waits until the next UTC midnight', async () => {
    const user = await signUpAndIn(sut.http);
    const campaignId = await startedCampaign(sut.http, user, 'Sixty look-ups', leads(60, 'quota', { email: false }));

    const outcomes: CycleBody[] = [];
    for (let i = 0; i < 50; i++) outcomes.push(await runCycle(sut.http, user, campaignId));
    expect(outcomes.every((c) => c.status === 'completed' && c.proposal?.action === 'linkedin_scrape_profile')).toBe(true);

    const before = Date.now();
    const next = await runCycle(sut.http, user, campaignId);
    const after = Date.now();
    const midnight = Date.UTC(new Date(before).getUTCFullYear(), new Date(before).getUTCMonth(), new Date(before).getUTCDate() + 1);
    expect(next).toEqual(expect.objectContaining({ status: 'deferred', code: 'QUOTA_EXCEEDED' }));
    expect(next.proposal).toEqual(expect.objectContaining({ action: 'wait_cooldown', by: 'controller' }));
    // The hours from the cycle's clock, read between before and after, to midnight, rounded up to the hundredth (36 s).
    const waitMs = Math.round((next.proposal!.args.durationHours as number) * 3_600_000);
    expect(waitMs).toBeGreaterThanOrEqual(midnight - after);
    expect(waitMs).toBeLessThan(midnight - before + 36_000);
    expect(new Date(next.task!.nextRunAt!).getTime()).toBe(midnight);

    const scraped = await sql.query<{ n: string }[]>(
      `SELECT count(*) AS n FROM outreach_actions WHERE campaign_id = $1 AND action = 'linkedin_scrape_profile'`,
      [campaignId],
    );
    expect(Number(scraped[0].n)).toBe(50);
    // The other look-ups wait for midnight too, so cycles go on with the messages.
    const waiting = await sql.query<{ n: string }[]>(
      `SELECT count(*) AS n FROM outreach_tasks WHERE campaign_id = $1 AND type = 'ScrapeProfile' AND status = 'Pending' AND next_run_at = $2`,
      [campaignId, new Date(midnight)],
    );
    expect(Number(waiting[0].n)).toBe(10);
    expect((await runCycle(sut.http, user, campaignId)).proposal?.action).toBe('linkedin_send_message');
  });

  it('never contacts anyone on the do-not-contact list', async () => {
    const user = await signUpAndIn(sut.http);
    const campaignId = await startedCampaign(sut.http, user, 'Careful', leads(1, 'dnc'));
    await request(sut.http)
      .post(`/api/${user.userId}/do-not-contact`)
      .set(user.auth)
      .send({ value: 'https://www.linkedin.com/in/dnc-1/' })
      .expect(201);

    const outcome = await runCycle(sut.http, user, campaignId);

    expect(outcome).toEqual(expect.objectContaining({ status: 'failed', code: 'DO_NOT_CONTACT' }));
    const tasks = await sql.query<{ status: string }[]>(`SELECT status FROM outreach_tasks WHERE campaign_id = $1`, [campaignId]);
    expect(tasks.map((t) => t.status)).toEqual(['Cancelled', 'Cancelled', 'Cancelled']);
    const reached = await sql.query<unknown[]>(
      `SELECT 1 FROM sandbox_linkedin_actions WHERE profile_url = 'https://www.linkedin.com/in/dnc-1/'`,
    );
    expect(reached).toHaveLength(0);
    const audit = await sql.query<{ status: string; error_code: string }[]>(
      `SELECT status, error_code FROM audit_log WHERE campaign_id = $1`,
      [campaignId],
    );
    expect(audit).toEqual([{ status: 'rejected', error_code: 'DO_NOT_CONTACT' }]);
  });

  it('refreshes an expired session from the secret store, then retries; the secret is never recorded', async () => {
    const user = await signUpAndIn(sut.http);
    const campaignId = await startedCampaign(sut.http, user, 'Session', leads(1, 'session'));
    await sql.query(
      `INSERT INTO sandbox_faults (channel, target, code) VALUES ('linkedin', 'https://www.linkedin.com/in/session-1/', 'SESSION_EXPIRED')`,
    );

    const expired = await runCycle(sut.http, user, campaignId);
    expect(expired).toEqual(expect.objectContaining({ status: 'deferred', code: 'CHANNEL_ERROR' }));
    expect(expired.execution).toEqual(expect.objectContaining({ status: 'failed', errorCode: 'SESSION_EXPIRED' }));
    // LinkedIn refused it outright: the slot it reserved is given back.
    expect(await used(user, campaignId, 'profile_lookup')).toEqual([0, 0]);

    const refresh = await runCycle(sut.http, user, campaignId);
    expect(refresh.proposal).toEqual(expect.objectContaining({ action: 'refresh_session', args: { secretName: 'linkedin-session' } }));
    expect(refresh.execution).toEqual(expect.objectContaining({ status: 'succeeded' }));

    const retried = await runCycle(sut.http, user, campaignId);
    expect(retried).toEqual(expect.objectContaining({ status: 'completed' }));
    expect(retried.proposal?.action).toBe('linkedin_scrape_profile');
    expect(await used(user, campaignId, 'profile_lookup')).toEqual([1, 1]);
    const rows = await sql.query<{ text: string }[]>(
      `SELECT arguments::text || coalesce(result::text, '') AS text FROM audit_log WHERE campaign_id = $1`,
      [campaignId],
    );
    expect(rows.map((r) => r.text).join()).not.toContain('sandbox-session-');
  });

  it('asks the channel after a timeout: an action that happened completes, never sent twice', async () => {
    const user = await signUpAndIn(sut.http);
    const campaignId = await startedCampaign(sut.http, user, 'Slow', leads(1, 'slow', { email: false }));
    expect((await runCycle(sut.http, user, campaignId)).status).toBe('completed');
    await sql.query(
      `INSERT INTO sandbox_faults (channel, target, code) VALUES ('linkedin', 'https://www.linkedin.com/in/slow-1/', 'HANG_AFTER')`,
    );

    const outcome = await runCycle(sut.http, user, campaignId);

    expect(outcome).toEqual(expect.objectContaining({ status: 'completed' }));
    expect(outcome.verification).toEqual(expect.objectContaining({ verified: true }));
    const messages = await sql.query<{ calls: number }[]>(
      `SELECT calls FROM sandbox_linkedin_actions WHERE profile_url = 'https://www.linkedin.com/in/slow-1/' AND kind = 'message'`,
    );
    expect(messages).toEqual([{ calls: 1 }]);
  });

  it('fails a task whose effect cannot be verified, with the reason audited', async () => {
    const user = await signUpAndIn(sut.http);
    const campaignId = await startedCampaign(sut.http, user, 'Unverifiable', leads(1, 'ghost', { email: false }));
    expect((await runCycle(sut.http, user, campaignId)).status).toBe('completed');
    await sql.query(
      `INSERT INTO sandbox_faults (channel, target, code) VALUES ('linkedin', 'https://www.linkedin.com/in/ghost-1/', 'UNVERIFIABLE')`,
    );

    const outcome = await runCycle(sut.http, user, campaignId);

    expect(outcome).toEqual(expect.objectContaining({ status: 'failed', code: 'VERIFICATION_FAILED' }));
    expect(outcome.task?.status).toBe('Failed');
    const [row] = await sql.query<{ status: string; error_code: string }[]>(
      `SELECT status, error_code FROM audit_log WHERE campaign_id = $1 AND tool = 'linkedin_send_message' AND status <> 'pending'`,
      [campaignId],
    );
    expect(row).toEqual({ status: 'failed', error_code: 'VERIFICATION_FAILED' });
    // The channel accepted it, so it may well have been sent: the slot stays used, and the owner sees what.
    expect(await used(user, campaignId, 'linkedin_message')).toEqual([1, 1]);
    const message = (await tasksOf(user, campaignId)).find((task) => task.type === 'SendLinkedInMessage')!;
    expect(message).toEqual(expect.objectContaining({ status: 'Failed', lastError: 'VERIFICATION_FAILED' }));
    expect(message.sent).toEqual({
      channel: 'linkedin',
      recipient: 'https://www.linkedin.com/in/ghost-1/',
      subject: null,
      text: outcome.proposal!.args.message,
    });
  });

  it('shows no sent message for an email the channel refused outright', async () => {
    const user = await signUpAndIn(sut.http);
    const campaignId = await startedCampaign(sut.http, user, 'Refused', leads(1, 'refused'));
    await sql.query(`INSERT INTO sandbox_faults (channel, target, code) VALUES ('email', 'refused.1@example.com', 'REJECTED')`);

    const outcomes = await runUntil(user, campaignId, (c) => c.proposal?.action === 'send_email');

    expect(outcomes.at(-1)).toEqual(expect.objectContaining({ status: 'failed', code: 'CHANNEL_ERROR' }));
    const tasks = await tasksOf(user, campaignId);
    expect(tasks.map((task) => [task.type, task.status, task.lastError, task.sent?.channel ?? null])).toEqual([
      ['ScrapeProfile', 'Completed', null, null],
      ['SendLinkedInMessage', 'Completed', null, 'linkedin'],
      ['SendEmail', 'Failed', 'REJECTED', null],
    ]);
    expect(await sql.query(`SELECT 1 FROM sandbox_email_outbox WHERE to_address = 'refused.1@example.com'`)).toEqual([]);
  });

  it('gives the slot back after a timeout when the channel has no trace of the action', async () => {
    const user = await signUpAndIn(sut.http);
    const campaignId = await startedCampaign(sut.http, user, 'Lost', leads(1, 'lost', { email: false }));
    await sql.query(
      `INSERT INTO sandbox_faults (channel, target, code) VALUES ('linkedin', 'https://www.linkedin.com/in/lost-1/', 'HANG_BEFORE')`,
    );

    const outcome = await runCycle(sut.http, user, campaignId);

    expect(outcome).toEqual(expect.objectContaining({ status: 'deferred', code: 'CHANNEL_ERROR' }));
    expect(outcome.execution).toEqual(expect.objectContaining({ status: 'failed', errorCode: 'TIMEOUT' }));
    expect(await used(user, campaignId, 'profile_lookup')).toEqual([0, 0]);
    const reached = await sql.query<unknown[]>(
      `SELECT 1 FROM sandbox_linkedin_actions WHERE profile_url = 'https://www.linkedin.com/in/lost-1/'`,
    );
    expect(reached).toHaveLength(0);
    expect(outcome.task).toEqual(expect.objectContaining({ status: 'Pending' }));
  });

  it('sweeps, in the server too, an action left in flight: found by its key, it completes its task', async () => {
    const user = await signUpAndIn(sut.http);
    const campaignId = await startedCampaign(sut.http, user, 'Abandoned', leads(1, 'abandoned', { email: false }));
    const [task] = await sql.query<{ id: string }[]>(`SELECT id FROM outreach_tasks WHERE campaign_id = $1 AND step = 1`, [campaignId]);
    const key = 'a'.repeat(64);
    const profileUrl = 'https://www.linkedin.com/in/abandoned-1/';
    // What a cycle cut off after the channel acted leaves behind.
    await sql.query(
      `UPDATE outreach_tasks SET status = 'InProgress', attempts = 1, lease_owner = 'gone', lease_expires_at = now() - interval '1 minute' WHERE id = $1`,
      [task.id],
    );
    const [pending] = await sql.query<{ seq: string }[]>(
      `INSERT INTO audit_log (source, actor_id, campaign_id, outreach_task_id, tool, arguments, status)
       VALUES ('outreach', $1, $2, $3, 'linkedin_scrape_profile', $4, 'pending') RETURNING seq`,
      [user.userId, campaignId, task.id, JSON.stringify({ profileUrl, fields: ['name'] })],
    );
    await sql.query(
      `INSERT INTO outreach_actions (task_id, campaign_id, owner_id, decision_id, action, kind, channel, target, args, idempotency_key,
         status, pending_audit_seq, lease_expires_at, created_at)
       VALUES ($1, $2, $3, gen_random_uuid(), 'linkedin_scrape_profile', 'profile_lookup', 'sandbox', $4, $5, $6, 'in_flight', $7,
         now() - interval '1 minute', now())`,
      [task.id, campaignId, user.userId, profileUrl, JSON.stringify({ profileUrl, fields: ['name'] }), key, pending.seq],
    );
    await sql.query(`INSERT INTO sandbox_linkedin_actions (idempotency_key, kind, profile_url, result) VALUES ($1, 'profile', $2, $3)`, [
      key,
      profileUrl,
      JSON.stringify({ profile: { name: 'Abandoned' } }),
    ]);

    const deadline = Date.now() + 5_000;
    let status = 'in_flight';
    while (status === 'in_flight' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      [{ status }] = await sql.query<{ status: string }[]>(`SELECT status FROM outreach_actions WHERE idempotency_key = $1`, [key]);
    }

    expect(status).toBe('succeeded');
    expect(await sql.query(`SELECT status FROM outreach_tasks WHERE id = $1`, [task.id])).toEqual([{ status: 'Completed' }]);
    expect(await sql.query(`SELECT status FROM audit_log WHERE pending_seq = $1`, [pending.seq])).toEqual([{ status: 'succeeded' }]);
    expect(await sql.query(`SELECT calls FROM sandbox_linkedin_actions WHERE idempotency_key = $1`, [key])).toEqual([{ calls: 1 }]);
  });

  it('runs cycles only for the owner of an active campaign', async () => {
    const owner = await signUpAndIn(sut.http);
    const stranger = await signUpAndIn(sut.http);
    const campaignId = await startedCampaign(sut.http, owner, 'Mine', leads(1, 'mine'));

    await request(sut.http).post(`/api/${stranger.userId}/campaigns/${campaignId}/cycles`).set(stranger.auth).expect(404);
    await request(sut.http).post(`/api/${owner.userId}/campaigns/${campaignId}/cycles`).set(stranger.auth).expect(403);
    await request(sut.http).post(`/api/${owner.userId}/campaigns/not-a-uuid/cycles`).set(owner.auth).expect(400);
    await request(sut.http).post(`/api/${owner.userId}/campaigns/${campaignId}/pause`).set(owner.auth).expect(200);
    const paused = await request(sut.http).post(`/api/${owner.userId}/campaigns/${campaignId}/cycles`).set(owner.auth).expect(409);
    expect(paused.body).toEqual(expect.objectContaining({ code: 'OUTREACH.CAMPAIGN_STATE' }));
  });
});
