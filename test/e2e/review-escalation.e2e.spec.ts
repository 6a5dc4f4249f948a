import request from 'supertest';
import { SweepStaleActionsUseCase } from '../../src/application/outreach/sweep-stale-actions.use-case';
import { ShiftedClock } from '../fakes/fixed-clock';
import type { SignedInUser } from '../support/accounts';
import { cyclesUntilIdle, startedCampaign } from '../support/outreach';
import { SmtpTestServer } from '../support/smtp-test-server';
import { useTestApp } from '../support/test-app';

const ESCALATING_REVIEW = {
  name: 'email-review-escalates',
  tools: ['send_email'],
  effect: 'ask-reviewer',
  reviewer: { timeoutMinutes: 60, fallback: 'escalate' },
};

const LEAD = { name: 'Partner Lead', linkedinUrl: 'https://www.linkedin.com/in/escalation-partner/', email: 'partner.lead@partner.test' };

interface Draft {
  id: string;
  status: string;
  campaign: { id: string };
  task: { id: string };
  action: string;
  recipient: string;
  subject: string | null;
  argumentsHash: string;
  reviewerId: string | null;
  createdAt: string;
  expiresAt: string;
  escalatedAt: string | null;
}

interface EscalatedDraft extends Draft {
  ownerId: string;
  ownerEmail: string | null;
}

interface AuditItem {
  actorId: string;
  tool: string;
  status: string;
  result: Record<string, unknown> | null;
}

/**
 * A policy rule's `fallback: escalate`, end to end: the campaign owner does not review the
 * email in the rule's time, the sweeper hands it to the admins, an admin approves it from
 * the admins' review queue, and the next cycle sends exactly it (a real SMTP server). The
 * clock is moved on, not waited for.
 */
describe('a draft its owner did not review in time, escalated to the admins', () => {
  let smtp: SmtpTestServer;
  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
  });
  const clock = new ShiftedClock();
  const sut = useTestApp({ env: () => ({ SMTP_URL: smtp.url, SMTP_FROM: 'Bridle <outreach@bridle.test>' }), clock });
  afterAll(() => smtp?.stop());
  const admin = sut.user({ admin: true });
  const ada = sut.user();
  const bob = sut.user();

  beforeAll(async () => {
    await request(sut.http)
      .put('/admin/policy')
      .set(admin.auth)
      .send({ rules: [ESCALATING_REVIEW], reason: 'Email is reviewed; the admins step in when its owner does not' })
      .expect(200);
  });

  async function ownDrafts(user: SignedInUser, campaignId: string): Promise<Draft[]> {
    const res = await request(sut.http).get(`/api/${user.userId}/outreach/drafts?limit=100`).set(user.auth).expect(200);
    return (res.body as { items: Draft[] }).items.filter((draft) => draft.campaign.id === campaignId);
  }

  async function adminQueue(): Promise<EscalatedDraft[]> {
    const res = await request(sut.http).get('/admin/review-queue?limit=100').set(admin.auth).expect(200);
    return (res.body as { items: EscalatedDraft[] }).items;
  }

  const decide = (decision: 'approve' | 'reject', draft: Pick<Draft, 'id' | 'argumentsHash'>, who: SignedInUser = admin) =>
    request(sut.http).post(`/admin/review-queue/${draft.id}/${decision}`).set(who.auth).send({ argumentsHash: draft.argumentsHash });

  async function auditRows(tool: string, campaignId: string): Promise<AuditItem[]> {
    const res = await request(sut.http)
      .get(`/admin/audit-logs?tool=${tool}&campaignId=${campaignId}&limit=100`)
      .set(admin.auth)
      .expect(200);
    return (res.body as { items: AuditItem[] }).items;
  }

  it('lists the escalated email in the admins’ queue with its owner; an admin approves it, and the next cycle sends exactly it', async () => {
    const campaignId = await startedCampaign(sut.http, ada, 'Escalated outreach', [LEAD]);
    const held = (await cyclesUntilIdle(sut.http, ada, campaignId)).filter((outcome) => outcome.proposal?.action === 'send_email');
    expect(held.map((outcome) => [outcome.proposal!.args.to, outcome.status])).toEqual([[LEAD.email, 'awaiting_review']]);
    expect(smtp.outreach).toEqual([]);
    const [draft] = await ownDrafts(ada, campaignId);
    expect(draft).toEqual(expect.objectContaining({ status: 'awaiting_review', action: 'send_email', escalatedAt: null }));
    const timeout = Date.parse(draft.expiresAt) - Date.parse(draft.createdAt);
    expect(timeout).toBe(60 * 60_000);

    // Not escalated yet: not in the admins' queue, and not theirs to decide.
    expect((await adminQueue()).map((item) => item.id)).not.toContain(draft.id);
    const early = await decide('approve', draft).expect(404);
    expect(early.body).toEqual(expect.objectContaining({ code: 'OUTREACH.DRAFT_NOT_FOUND' }));

    // Ada's hour passes unanswered: the sweeper escalates the draft for another hour.
    clock.advance(timeout + 60_000);
    await sut.app.get(SweepStaleActionsUseCase).run();
    const [escalated] = await ownDrafts(ada, campaignId);
    expect(escalated).toEqual(expect.objectContaining({ id: draft.id, status: 'awaiting_review', escalatedAt: expect.any(String) }));
    expect(Date.parse(escalated.expiresAt) - Date.parse(escalated.escalatedAt!)).toBe(timeout);
    const [escalation] = await auditRows('escalate_draft', campaignId);
    expect(escalation).toEqual(
      expect.objectContaining({
        actorId: ada.userId,
        status: 'succeeded',
        result: { draftId: draft.id, decision: 'escalated', action: 'send_email', expiresAt: escalated.expiresAt },
      }),
    );

    // In the admins' queue, with whose it is; refused to anyone else.
    const queued = (await adminQueue()).filter((item) => item.id === draft.id);
    expect(queued).toEqual([
      expect.objectContaining({
        id: draft.id,
        status: 'awaiting_review',
        recipient: LEAD.email,
        argumentsHash: draft.argumentsHash,
        escalatedAt: escalated.escalatedAt,
        ownerId: ada.userId,
        ownerEmail: ada.email,
      }),
    ]);
    // Each read of the queue, which shows other people's messages, is an audit row of its own.
    const reads = await request(sut.http).get('/admin/audit-logs?tool=admin.review_queue.list&limit=100').set(admin.auth).expect(200);
    expect((reads.body as { items: AuditItem[] }).items[0]).toEqual(
      expect.objectContaining({ actorId: admin.userId, status: 'succeeded', result: { items: expect.any(Number), more: false } }),
    );
    const refused = await request(sut.http).get('/admin/review-queue').set(ada.auth).expect(403);
    expect(refused.body).toEqual(expect.objectContaining({ code: 'AUTH.FORBIDDEN' }));
    await decide('approve', draft, ada).expect(403);

    // The admin approves it in Ada's stead; a second approval is stale.
    const approved = await decide('approve', draft).expect(200);
    expect(approved.body).toEqual(expect.objectContaining({ id: draft.id, status: 'approved', reviewerId: admin.userId }));
    const again = await decide('approve', draft).expect(409);
    expect(again.body).toEqual(expect.objectContaining({ code: 'OUTREACH.DRAFT_NOT_AWAITING_REVIEW' }));
    expect((await adminQueue()).map((item) => item.id)).not.toContain(draft.id);

    // The next cycle sends exactly the approved email, once.
    const sent = (await cyclesUntilIdle(sut.http, ada, campaignId)).filter((outcome) => outcome.proposal?.action === 'send_email');
    expect(sent.map((outcome) => outcome.status)).toEqual(['completed']);
    expect(smtp.outreach.map((mail) => [mail.envelope.to, mail.headers.get('subject')])).toEqual([[[LEAD.email], draft.subject]]);

    // The approval's audit row names the admin as actor and reviewer.
    const approvals = await auditRows('approve_draft', campaignId);
    expect(approvals).toEqual([
      expect.objectContaining({
        actorId: admin.userId,
        status: 'succeeded',
        result: expect.objectContaining({ draftId: draft.id, decision: 'approved', reviewerId: admin.userId }),
      }),
    ]);
  });

  it('answers an admin’s decision on a draft that was never escalated with 404, and changes nothing', async () => {
    // Held by the campaign's own review mode, not by the rule: only its owner reviews it.
    const created = await request(sut.http)
      .post(`/api/${bob.userId}/campaigns`)
      .set(bob.auth)
      .send({ name: 'Own review', approvalMode: 'all' })
      .expect(201);
    const campaignId = (created.body as { id: string }).id;
    const base = `/api/${bob.userId}/campaigns/${campaignId}`;
    await request(sut.http)
      .post(`${base}/leads`)
      .set(bob.auth)
      .send({ leads: [{ name: 'Own Lead', linkedinUrl: 'https://www.linkedin.com/in/escalation-own/' }] })
      .expect(201);
    await request(sut.http).post(`${base}/start`).set(bob.auth).expect(200);
    await cyclesUntilIdle(sut.http, bob, campaignId);
    const [draft] = await ownDrafts(bob, campaignId);
    expect(draft).toEqual(expect.objectContaining({ status: 'awaiting_review', escalatedAt: null }));

    for (const decision of ['approve', 'reject'] as const) {
      const refused = await decide(decision, draft).expect(404);
      expect(refused.body).toEqual(expect.objectContaining({ code: 'OUTREACH.DRAFT_NOT_FOUND' }));
    }
    await decide('approve', { id: '00000000-0000-4000-8000-000000000000', argumentsHash: draft.argumentsHash }).expect(404);
    // Bad input is a 400 naming the field, before anything is read.
    const badInput = [
      [decide('approve', { id: 'not-a-uuid', argumentsHash: draft.argumentsHash }), 'draftId'],
      [request(sut.http).post(`/admin/review-queue/${draft.id}/reject`).set(admin.auth).send({}), 'argumentsHash'],
      [decide('approve', { id: draft.id, argumentsHash: 'ABC' }), 'argumentsHash'],
      [request(sut.http).get('/admin/review-queue?limit=0').set(admin.auth), 'limit'],
      [request(sut.http).get('/admin/review-queue?cursor=%00').set(admin.auth), 'cursor'],
    ] as const;
    for (const [sent, field] of badInput) {
      const res = await sent;
      expect({ status: res.status, field: (res.body as { message: string }).message.includes(field) }).toEqual({
        status: 400,
        field: true,
      });
    }
    expect(await ownDrafts(bob, campaignId)).toEqual([draft]);
    expect(await auditRows('approve_draft', campaignId)).toEqual([]);
    expect(await auditRows('reject_draft', campaignId)).toEqual([]);
  });
});
