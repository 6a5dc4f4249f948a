import request from 'supertest';
import { DataSource } from 'typeorm';
import { SweepStaleActionsUseCase } from '../../src/application/outreach/sweep-stale-actions.use-case';
import { type SignedInUser, signUpAndIn } from '../support/accounts';
import { type CycleBody, type LeadInput, cyclesUntilIdle, leads, runCycle } from '../support/outreach';
import { useTestApp } from '../support/test-app';

interface Draft {
  id: string;
  status: string;
  campaign: { id: string; name: string };
  lead: { id: string; name: string };
  task: { id: string; type: string };
  action: string;
  args: Record<string, unknown>;
  recipient: string;
  subject: string | null;
  text: string | null;
  argumentsHash: string;
  edited: boolean;
  reviewerId: string | null;
  createdAt: string;
  expiresAt: string;
}

interface TaskItem {
  id: string;
  leadName: string;
  type: string;
  status: string;
  lastError: string | null;
  sent: { channel: string; recipient: string; subject: string | null; text: string } | null;
}

/** Review before send over HTTP, on the offline planner and the sandbox channels. */
describe('outreach review before send', () => {
  const sut = useTestApp({ env: { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' } });
  let sql: DataSource;
  beforeAll(() => {
    sql = sut.app.get(DataSource);
  });

  /** Starts a new server on the same database (the test closes the one before). */
  const start = async () => {
    await sut.restart();
    sql = sut.app.get(DataSource);
  };

  async function reviewedCampaign(
    user: SignedInUser,
    name: string,
    campaignLeads: readonly LeadInput[],
    approval: { approvalMode: string; approvalFirstN?: number },
  ): Promise<string> {
    const base = `/api/${user.userId}/campaigns`;
    const created = await request(sut.http)
      .post(base)
      .set(user.auth)
      .send({ name, ...approval })
      .expect(201);
    const body = created.body as { id: string; approvalMode: string; approvalFirstN: number };
    expect(body).toEqual(expect.objectContaining({ approvalMode: approval.approvalMode, approvalFirstN: approval.approvalFirstN ?? 3 }));
    await request(sut.http).post(`${base}/${body.id}/leads`).set(user.auth).send({ leads: campaignLeads }).expect(201);
    await request(sut.http).post(`${base}/${body.id}/start`).set(user.auth).expect(200);
    return body.id;
  }

  async function drafts(user: SignedInUser, campaignId: string, status = 'awaiting_review'): Promise<Draft[]> {
    const res = await request(sut.http).get(`/api/${user.userId}/outreach/drafts?status=${status}&limit=100`).set(user.auth).expect(200);
    return (res.body as { items: Draft[] }).items.filter((draft) => draft.campaign.id === campaignId);
  }

  function approve(user: SignedInUser, draft: Pick<Draft, 'id' | 'argumentsHash'>, edits?: Record<string, string>) {
    return request(sut.http)
      .post(`/api/${user.userId}/outreach/drafts/${draft.id}/approve`)
      .set(user.auth)
      .send({ argumentsHash: draft.argumentsHash, ...(edits ? { edits } : {}) });
  }

  function reject(user: SignedInUser, draft: Pick<Draft, 'id' | 'argumentsHash'>) {
    return request(sut.http)
      .post(`/api/${user.userId}/outreach/drafts/${draft.id}/reject`)
      .set(user.auth)
      .send({ argumentsHash: draft.argumentsHash });
  }

  /** What the sandbox channels received for the campaign's leads, from their own tables. */
  async function channelCalls(prefix: string): Promise<{ lookups: number; messages: string[]; emails: string[] }> {
    const url = `https://www.linkedin.com/in/${prefix}-%`;
    const linkedin = await sql.query<{ kind: string; message: string | null; calls: number }[]>(
      `SELECT kind, message, calls FROM sandbox_linkedin_actions WHERE profile_url LIKE $1`,
      [url],
    );
    const emails = await sql.query<{ body: string }[]>(`SELECT body FROM sandbox_email_outbox WHERE to_address LIKE $1`, [`${prefix}.%`]);
    for (const row of linkedin) expect(row.calls).toBe(1);
    return {
      lookups: linkedin.filter((row) => row.kind === 'profile').length,
      messages: linkedin.filter((row) => row.kind === 'message').map((row) => row.message!),
      emails: emails.map((row) => row.body),
    };
  }

  async function used(user: SignedInUser, campaignId: string, kind: string): Promise<[number, number]> {
    const res = await request(sut.http).get(`/api/${user.userId}/campaigns/${campaignId}`).set(user.auth).expect(200);
    const usage = (res.body as { usage: { kinds: Record<string, { campaign: { used: number }; owner: { used: number } }> } }).usage;
    return [usage.kinds[kind].campaign.used, usage.kinds[kind].owner.used];
  }

  async function tasksOf(user: SignedInUser, campaignId: string): Promise<TaskItem[]> {
    const res = await request(sut.http).get(`/api/${user.userId}/campaigns/${campaignId}/tasks?limit=100`).set(user.auth).expect(200);
    return (res.body as { items: TaskItem[] }).items;
  }

  async function campaignStatus(user: SignedInUser, campaignId: string): Promise<{ status: string; tasks: Record<string, number> }> {
    const res = await request(sut.http).get(`/api/${user.userId}/campaigns/${campaignId}`).set(user.auth).expect(200);
    return res.body as { status: string; tasks: Record<string, number> };
  }

  it('in all mode, sends nothing before approval; approving completes the campaign, an edit sends the edited text, a rejection never sends and gives its slot back', async () => {
    const user = await signUpAndIn(sut.http);
    const campaignId = await reviewedCampaign(user, 'Reviewed', leads(5, 'rev'), { approvalMode: 'all' });

    // Each lead's look-up is drafted; the next cycle has nothing to do, and the campaign stays open.
    const first = await cyclesUntilIdle(sut.http, user, campaignId);
    expect(first.map((c) => c.status)).toEqual([...Array(5).fill('awaiting_review'), 'idle']);
    for (const outcome of first.slice(0, 5)) {
      expect(outcome).toEqual(
        expect.objectContaining({
          code: 'AWAITING_REVIEW',
          execution: null,
          task: expect.objectContaining({ status: 'AwaitingReview' }),
          review: { draftId: expect.any(String), argumentsHash: expect.stringMatching(/^[0-9a-f]{64}$/), expiresAt: expect.any(String) },
        }),
      );
    }
    expect(await channelCalls('rev')).toEqual({ lookups: 0, messages: [], emails: [] });
    const [actions] = await sql.query<{ n: string }[]>(`SELECT count(*) AS n FROM outreach_actions WHERE campaign_id = $1`, [campaignId]);
    expect(Number(actions.n)).toBe(0);
    // The slots are held while the drafts wait.
    expect(await used(user, campaignId, 'profile_lookup')).toEqual([5, 5]);
    const held = await campaignStatus(user, campaignId);
    expect(held).toEqual(expect.objectContaining({ status: 'active', tasks: expect.objectContaining({ AwaitingReview: 5, Pending: 10 }) }));
    // Each draft is audited (confirmation_required) with its id, hash and expiry.
    const audited = await sql.query<{ result: { draftId: string; argumentsHash: string; expiresAt: string } }[]>(
      `SELECT result FROM audit_log WHERE campaign_id = $1 AND status = 'confirmation_required'`,
      [campaignId],
    );
    expect(audited).toHaveLength(5);

    const queue = await drafts(user, campaignId);
    expect(queue).toHaveLength(5);
    for (const draft of queue) {
      expect(draft).toEqual(
        expect.objectContaining({
          status: 'awaiting_review',
          action: 'linkedin_scrape_profile',
          recipient: expect.stringMatching(/^https:\/\/www\.linkedin\.com\/in\/rev-\d\/$/),
          campaign: { id: campaignId, name: 'Reviewed' },
          task: expect.objectContaining({ type: 'ScrapeProfile' }),
        }),
      );
      expect(audited.map((row) => row.result)).toContainEqual(
        expect.objectContaining({ draftId: draft.id, argumentsHash: draft.argumentsHash, expiresAt: draft.expiresAt }),
      );
    }

    // Reviewing round after round: approve everything, but edit lead 1's message and reject lead 2's email.
    const editedText = 'Hello Rev Lead 1, this text was written by a person, not the model.';
    let rejectedTaskId: string | null = null;
    for (let round = 0; round < 10; round++) {
      const pending = await drafts(user, campaignId);
      if (pending.length === 0) break;
      for (const draft of pending) {
        if (draft.action === 'send_email' && draft.lead.name === 'rev Lead 2') {
          const before = await used(user, campaignId, 'email');
          const res = await reject(user, draft).expect(200);
          expect(res.body).toEqual(expect.objectContaining({ status: 'rejected', reviewerId: user.userId }));
          expect(await used(user, campaignId, 'email')).toEqual([before[0] - 1, before[1] - 1]);
          rejectedTaskId = draft.task.id;
          continue;
        }
        const edits = draft.action === 'linkedin_send_message' && draft.lead.name === 'rev Lead 1' ? { message: editedText } : undefined;
        const res = await approve(user, draft, edits).expect(200);
        const approved = res.body as Draft;
        expect(approved).toEqual(expect.objectContaining({ status: 'approved', reviewerId: user.userId, edited: Boolean(edits) }));
        if (edits) {
          expect(approved.text).toBe(editedText);
          expect(approved.argumentsHash).not.toBe(draft.argumentsHash);
          expect(approved.recipient).toBe(draft.recipient);
        } else expect(approved.argumentsHash).toBe(draft.argumentsHash);
      }
      await cyclesUntilIdle(sut.http, user, campaignId);
    }
    expect(rejectedTaskId).not.toBeNull();
    // Nothing was left after the last round: the model completed the campaign.
    expect((await campaignStatus(user, campaignId)).status).toBe('completed');

    const calls = await channelCalls('rev');
    expect(calls.lookups).toBe(5);
    expect(calls.messages).toHaveLength(5);
    expect(calls.messages).toContain(editedText);
    expect(calls.emails).toHaveLength(4);
    const tasks = await tasksOf(user, campaignId);
    const edited = tasks.find((task) => task.type === 'SendLinkedInMessage' && task.leadName === 'rev Lead 1')!;
    expect(edited).toEqual(expect.objectContaining({ status: 'Completed', sent: expect.objectContaining({ text: editedText }) }));
    const rejected = tasks.find((task) => task.id === rejectedTaskId)!;
    expect(rejected).toEqual(expect.objectContaining({ status: 'Cancelled', lastError: 'REJECTED_BY_REVIEWER', sent: null }));
    expect(tasks.filter((task) => task.status === 'Completed')).toHaveLength(14);
    // Every channel action went through the idempotent path once: one action row each, all succeeded.
    const rows = await sql.query<{ status: string; n: string }[]>(
      `SELECT status, count(*) AS n FROM outreach_actions WHERE campaign_id = $1 GROUP BY status`,
      [campaignId],
    );
    expect(rows).toEqual([{ status: 'succeeded', n: '14' }]);
    // The reviewer is on the audit rows of the decisions.
    const decisions = await sql.query<{ tool: string; actor_id: string; n: string }[]>(
      `SELECT tool, actor_id, count(*) AS n FROM audit_log WHERE campaign_id = $1 AND tool IN ('approve_draft', 'reject_draft')
       GROUP BY tool, actor_id ORDER BY tool`,
      [campaignId],
    );
    expect(decisions).toEqual([
      { tool: 'approve_draft', actor_id: user.userId, n: '14' },
      { tool: 'reject_draft', actor_id: user.userId, n: '1' },
    ]);
  });

  it('refuses a stale, replayed or foreign review, and bad input by field', async () => {
    const user = await signUpAndIn(sut.http);
    const other = await signUpAndIn(sut.http);
    const campaignId = await reviewedCampaign(user, 'Replays', leads(2, 'replay', { email: false }), { approvalMode: 'all' });
    await cyclesUntilIdle(sut.http, user, campaignId);
    const [a, b] = await drafts(user, campaignId);

    // Another hash never approves the draft; another user does not see it.
    const stale = await approve(user, { id: a.id, argumentsHash: 'f'.repeat(64) }).expect(409);
    expect(stale.body).toEqual(expect.objectContaining({ code: 'OUTREACH.DRAFT_HASH_MISMATCH' }));
    await request(sut.http)
      .post(`/api/${other.userId}/outreach/drafts/${a.id}/approve`)
      .set(other.auth)
      .send({ argumentsHash: a.argumentsHash })
      .expect(404);
    const badHash = await approve(user, { id: a.id, argumentsHash: 'nope' }).expect(400);
    expect(JSON.stringify(badHash.body)).toContain('argumentsHash');
    const badEdit = await approve(user, a, { to: 'boss@victim.example' }).expect(400);
    expect(JSON.stringify(badEdit.body)).toContain('to');
    const wrongField = await approve(user, a, { message: 'A look-up has no message to edit' }).expect(400);
    expect(wrongField.body).toEqual(expect.objectContaining({ code: 'OUTREACH.INVALID_DRAFT_EDIT' }));
    await request(sut.http).get(`/api/${user.userId}/outreach/drafts?status=bogus`).set(user.auth).expect(400);

    // Twice in a row: the second changes nothing.
    await approve(user, a).expect(200);
    const again = await approve(user, a).expect(409);
    expect(again.body).toEqual(expect.objectContaining({ code: 'OUTREACH.DRAFT_NOT_AWAITING_REVIEW' }));
    // Twice at once: exactly one wins.
    const both = await Promise.all([approve(user, b), approve(user, b)]);
    expect(both.map((res) => res.status).sort()).toEqual([200, 409]);
    // A decided draft cannot be rejected either.
    await reject(user, a).expect(409);

    await cyclesUntilIdle(sut.http, user, campaignId);
    await approve(user, a).expect(409);
    expect((await channelCalls('replay')).lookups).toBe(2);
    const sent = await drafts(user, campaignId, 'sent');
    expect(sent.map((draft) => draft.id).sort()).toEqual([a.id, b.id].sort());
  });

  it('after N approvals of a kind in first_n mode, that kind runs alone', async () => {
    const user = await signUpAndIn(sut.http);
    const campaignId = await reviewedCampaign(user, 'First one', leads(2, 'firstn', { email: false }), {
      approvalMode: 'first_n',
      approvalFirstN: 1,
    });
    // Until one look-up is approved, every look-up waits for a person.
    const held = await cyclesUntilIdle(sut.http, user, campaignId);
    expect(held.map((c) => c.status)).toEqual(['awaiting_review', 'awaiting_review', 'idle']);
    for (const draft of await drafts(user, campaignId)) await approve(user, draft).expect(200);
    // The approved look-ups run; then the LinkedIn messages wait, none of that kind being approved yet.
    const next = await cyclesUntilIdle(sut.http, user, campaignId);
    expect(next.map((c) => `${c.proposal?.action ?? '-'} ${c.status}`).sort()).toEqual([
      '- idle',
      'linkedin_scrape_profile completed',
      'linkedin_scrape_profile completed',
      'linkedin_send_message awaiting_review',
      'linkedin_send_message awaiting_review',
    ]);
    for (const draft of await drafts(user, campaignId)) await approve(user, draft).expect(200);

    // New leads: with one approval of each kind behind it, the campaign now runs them alone.
    await request(sut.http)
      .post(`/api/${user.userId}/campaigns/${campaignId}/leads`)
      .set(user.auth)
      .send({ leads: leads(4, 'firstn', { email: false }).slice(2) })
      .expect(201);
    const alone = await cyclesUntilIdle(sut.http, user, campaignId);
    expect(alone.filter((c) => c.status === 'awaiting_review')).toEqual([]);
    expect(alone.filter((c) => c.status === 'completed')).toHaveLength(6);
    expect(alone.at(-1)!.status).toBe('campaign_completed');
    const calls = await channelCalls('firstn');
    expect([calls.lookups, calls.messages.length]).toEqual([4, 4]);
    expect(await drafts(user, campaignId)).toEqual([]);
    expect(await drafts(user, campaignId, 'sent')).toHaveLength(4);
  });

  it('expires a draft nobody decided: the sweeper gives its slot back and the task drafts afresh', async () => {
    const user = await signUpAndIn(sut.http);
    const campaignId = await reviewedCampaign(user, 'Expiry', leads(1, 'expiry', { email: false }), { approvalMode: 'all' });
    await cyclesUntilIdle(sut.http, user, campaignId);
    const [draft] = await drafts(user, campaignId);
    expect(await used(user, campaignId, 'profile_lookup')).toEqual([1, 1]);
    expect(new Date(draft.expiresAt).getTime() - new Date(draft.createdAt).getTime()).toBe(72 * 3_600_000);

    await sql.query(`UPDATE outreach_drafts SET expires_at = now() - interval '1 second' WHERE id = $1`, [draft.id]);
    const late = await approve(user, draft).expect(409);
    expect(late.body).toEqual(expect.objectContaining({ code: 'OUTREACH.DRAFT_EXPIRED' }));
    const report = await sut.app.get(SweepStaleActionsUseCase).run();
    expect(report.expiredDrafts).toBeGreaterThanOrEqual(1);

    expect(await used(user, campaignId, 'profile_lookup')).toEqual([0, 0]);
    expect((await drafts(user, campaignId, 'expired')).map((d) => d.id)).toEqual([draft.id]);
    const [task] = await tasksOf(user, campaignId);
    expect(task).toEqual(expect.objectContaining({ status: 'Pending', lastError: 'DRAFT_EXPIRED' }));
    const again = await runCycle(sut.http, user, campaignId);
    expect(again).toEqual(expect.objectContaining({ status: 'awaiting_review' }));
    expect((again as CycleBody & { review: { draftId: string } }).review.draftId).not.toBe(draft.id);
    expect((await channelCalls('expiry')).lookups).toBe(0);
  });

  it('keeps an approval across a restart, and a replay after it sends nothing again', async () => {
    const user = await signUpAndIn(sut.http);
    const campaignId = await reviewedCampaign(user, 'Restart', leads(1, 'restart', { email: false }), { approvalMode: 'all' });
    await cyclesUntilIdle(sut.http, user, campaignId);
    const [draft] = await drafts(user, campaignId);
    await approve(user, draft).expect(200);

    // The approval lives in the database: a new server on it runs the reviewed action.
    await sut.close();
    await start();
    await approve(user, draft).expect(409);
    const outcome = await runCycle(sut.http, user, campaignId);
    expect(outcome).toEqual(
      expect.objectContaining({ status: 'completed', proposal: expect.objectContaining({ action: 'linkedin_scrape_profile' }) }),
    );
    expect((await drafts(user, campaignId, 'sent')).map((d) => d.id)).toEqual([draft.id]);

    // And again after another restart: the replay is refused and nothing is sent twice.
    await sut.close();
    await start();
    await approve(user, draft).expect(409);
    await cyclesUntilIdle(sut.http, user, campaignId);
    expect((await channelCalls('restart')).lookups).toBe(1);
    const [actions] = await sql.query<{ n: string }[]>(
      `SELECT count(*) AS n FROM outreach_actions WHERE campaign_id = $1 AND action = 'linkedin_scrape_profile'`,
      [campaignId],
    );
    expect(Number(actions.n)).toBe(1);
  });
});
