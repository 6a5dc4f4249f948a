import type { ToolAuditEntry } from '../../src/application/audit/ports/audit-log.port';
import { ErasedAddressKey } from '../../src/infrastructure/security/erased-address-key';
import type { ClaimedTask } from '../../src/application/outreach/ports/outreach-cycle-store.port';
import type { DraftProposal } from '../../src/domain/outreach/review';
import { AuditAppender } from '../../src/infrastructure/persistence/tables/audit-log';
import { PostgresOutreachCycleStore } from '../../src/infrastructure/persistence/repositories/postgres-outreach-cycle-store';
import {
  draftArgumentsHash,
  PostgresOutreachDraftStore,
} from '../../src/infrastructure/persistence/repositories/postgres-outreach-draft-store';
import { markDraftSent } from '../../src/infrastructure/persistence/tables/outreach-drafts';
import { DraftResponseDto } from '../../src/interfaces/http/outreach/draft.dto';
import { RecordingMetrics } from '../fakes/recording-metrics';
import { WORDS_OF_A_NO } from '../support/words-of-a-no';
import { useOpenDatabase } from '../support/persistence';
import { addActiveCampaign, aLead, uniqueSlug } from '../factories/campaigns';
import { addUser } from '../factories/users';

describe(`${PostgresOutreachDraftStore.name} on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();
  let cycles: PostgresOutreachCycleStore;
  let sut: PostgresOutreachDraftStore;
  const now = new Date();
  const day = now.toISOString().slice(0, 10);
  const limits = { campaign: { day: 50, week: null }, owner: { day: 100, week: null } };
  /** What a claim reads its task's context with. */
  const contextOf = {
    day,
    ownerLimits: {
      daily: { profile_lookup: 100, linkedin_message: 100, email: 100 },
      weekly: { profile_lookup: 500, linkedin_message: 500, email: 500 },
    },
    secretNames: [],
  };

  beforeAll(() => {
    const appender = new AuditAppender(new RecordingMetrics());
    cycles = new PostgresOutreachCycleStore(db.database, appender, ErasedAddressKey.derive('test secret'));
    sut = new PostgresOutreachDraftStore(db.database, appender, ErasedAddressKey.derive('test secret'));
  });

  const sql = <T>(query: string, parameters: unknown[] = []) => db.database.query<T>(query, parameters);

  /** A campaign in `all` mode with one lead, its look-up claimed. */
  async function claimed(): Promise<{ claim: ClaimedTask; proposal: DraftProposal; audit: ToolAuditEntry }> {
    const owner = await addUser(db.database);
    const slug = uniqueSlug();
    const campaignId = await addActiveCampaign(db.database, owner.id, {
      now,
      campaign: { name: 'Drafts', approvalMode: 'all' },
      leads: [aLead(slug, { name: 'Ada' })],
    });
    const { claim } = (await cycles.claimTask({ workerId: 'w-1', now, leaseMs: 60_000, campaignId, ...contextOf }))!;
    const proposal: DraftProposal = {
      action: 'linkedin_scrape_profile',
      args: { profileUrl: `https://www.linkedin.com/in/${slug}/`, fields: ['name'] },
      reason: 'Look the lead up before writing',
    };
    const audit: ToolAuditEntry = {
      source: 'outreach',
      actorId: owner.id,
      campaignId,
      outreachTaskId: claim.taskId,
      tool: proposal.action,
      arguments: proposal.args,
      securityEvents: [],
    };
    return { claim, proposal, audit };
  }

  async function held(options: { onExpiry?: 'reject' | 'escalate' } = {}) {
    const { claim, proposal, audit } = await claimed();
    const result = await sut.hold({
      ...options,
      claim,
      decisionId: '00000000-0000-4000-8000-000000000001',
      proposal,
      kind: 'profile_lookup',
      limits,
      day,
      now,
      expiresAt: new Date(now.getTime() + 3_600_000),
      audit,
    });
    if (result.status !== 'held') throw new Error(result.status);
    return { claim, proposal, ...result };
  }

  const usedOf = async (campaignId: string) =>
    (
      await sql<{ used: number }[]>(
        `SELECT used FROM quota_ledger WHERE scope = 'campaign' AND scope_id = $1 AND kind = 'profile_lookup'`,
        [campaignId],
      )
    )[0]?.used ?? 0;
  const taskOf = async (taskId: string) =>
    (
      await sql<{ status: string; last_error: string | null }[]>(`SELECT status, last_error FROM outreach_tasks WHERE id = $1`, [taskId])
    )[0];

  it('holds the action with its slot, its audit row and the task parked', async () => {
    const { claim, proposal, draftId, argumentsHash } = await held();
    expect(argumentsHash).toBe(draftArgumentsHash(proposal.args));
    expect(await usedOf(claim.campaignId)).toBe(1);
    expect(await taskOf(claim.taskId)).toEqual({ status: 'AwaitingReview', last_error: null });
    const [row] = await sql<{ status: string; result: { draftId: string } }[]>(
      `SELECT status, result FROM audit_log WHERE outreach_task_id = $1`,
      [claim.taskId],
    );
    expect(row).toEqual({ status: 'confirmation_required', result: expect.objectContaining({ draftId, argumentsHash }) });
    // Parked: no claim picks it up.
    expect(await cycles.claimTask({ workerId: 'w-2', now, leaseMs: 60_000, campaignId: claim.campaignId, ...contextOf })).toBeNull();
  });

  it('approves once among 10 concurrent approvals, never with another hash, and sends once', async () => {
    const { claim, draftId, argumentsHash } = await held();
    const stale = await sut.approve({
      ownerId: claim.ownerId,
      draftId,
      argumentsHash: 'f'.repeat(64),
      edited: null,
      reviewerId: claim.ownerId,
      now,
    });
    expect(stale).toEqual({ ok: false, problem: 'hash_mismatch', status: 'awaiting_review' });
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        sut.approve({ ownerId: claim.ownerId, draftId, argumentsHash, edited: null, reviewerId: claim.ownerId, now }),
      ),
    );
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(results.filter((result) => !result.ok)).toEqual(
      Array(9).fill({ ok: false, problem: 'not_awaiting_review', status: 'approved' }),
    );
    expect(await taskOf(claim.taskId)).toEqual({ status: 'Pending', last_error: null });
    const [sent, again] = [await markDraftSent(db.database, draftId, now), await markDraftSent(db.database, draftId, now)];
    expect([sent, again]).toEqual([true, false]);
  });

  it('gives the slot back on rejection, and cancels the task', async () => {
    const { claim, draftId, argumentsHash } = await held();
    const other = await sut.reject({
      ownerId: '00000000-0000-4000-8000-000000000009',
      draftId,
      argumentsHash,
      reviewerId: claim.ownerId,
      now,
    });
    expect(other).toEqual({ ok: false, problem: 'not_found' });
    const rejected = await sut.reject({ ownerId: claim.ownerId, draftId, argumentsHash, reviewerId: claim.ownerId, now });
    expect(rejected).toEqual({ ok: true, draft: expect.objectContaining({ status: 'rejected', reviewerId: claim.ownerId }) });
    expect(await usedOf(claim.campaignId)).toBe(0);
    expect(await taskOf(claim.taskId)).toEqual({ status: 'Cancelled', last_error: 'REJECTED_BY_REVIEWER' });
  });

  it('expires a draft past its time: slot back, task due again', async () => {
    const { claim, draftId } = await held();
    const report = await sut.expire(new Date(now.getTime() + 2 * 3_600_000), 50);
    expect(report.expired).toBeGreaterThanOrEqual(1);
    expect(await usedOf(claim.campaignId)).toBe(0);
    expect(await taskOf(claim.taskId)).toEqual({ status: 'Pending', last_error: 'DRAFT_EXPIRED' });
    const [draft] = await sql<{ status: string }[]>(`SELECT status FROM outreach_drafts WHERE id = $1`, [draftId]);
    expect(draft.status).toBe('expired');
    const [row] = await sql<{ result: Record<string, unknown> }[]>(
      `SELECT result FROM audit_log WHERE outreach_task_id = $1 AND tool = 'expire_draft'`,
      [claim.taskId],
    );
    expect(row.result).toEqual(
      expect.objectContaining({
        decision: 'expired',
        taskLastError: 'DRAFT_EXPIRED',
        message: 'The draft expired undecided after 1 hour, so nothing was sent and a fresh draft will be made.',
      }),
    );
  });

  it("expires a policy reviewer's draft nobody decided when the rule's fallback is reject: slot back, task cancelled as expired, audited as expired", async () => {
    const { claim, draftId } = await held({ onExpiry: 'reject' });
    await sut.expire(new Date(now.getTime() + 2 * 3_600_000), 50);
    expect(await usedOf(claim.campaignId)).toBe(0);
    expect(await taskOf(claim.taskId)).toEqual({ status: 'Cancelled', last_error: 'REVIEW_EXPIRED' });
    const rows = await sql<{ tool: string; status: string; result: Record<string, unknown> }[]>(
      `SELECT tool, status, result FROM audit_log WHERE outreach_task_id = $1 AND tool = 'expire_draft'`,
      [claim.taskId],
    );
    expect(rows).toEqual([
      {
        tool: 'expire_draft',
        status: 'succeeded',
        result: expect.objectContaining({
          draftId,
          decision: 'expired',
          taskLastError: 'REVIEW_EXPIRED',
          message: 'The draft expired undecided after 1 hour, so nothing was sent and its task was cancelled.',
        }),
      },
    ]);
    expect(rows[0].result).not.toHaveProperty('escalated');
    // What the API shows of it: the draft expired, never rejected.
    const view = DraftResponseDto.of((await sut.get(claim.ownerId, draftId))!.draft);
    expect(view).toEqual(expect.objectContaining({ id: draftId, status: 'expired', reviewerId: null }));
    expect(JSON.stringify([view, rows[0].result])).not.toMatch(WORDS_OF_A_NO);
  });

  it("escalates a policy reviewer's draft past its time when the rule's fallback is escalate, then expires it when the admins' time runs out", async () => {
    const { claim, draftId } = await held({ onExpiry: 'escalate' });
    const draftRow = async () =>
      (
        await sql<{ status: string; on_expiry: string; escalated_at: Date | null; created_at: Date; expires_at: Date }[]>(
          `SELECT status, on_expiry, escalated_at, created_at, expires_at FROM outreach_drafts WHERE id = $1`,
          [draftId],
        )
      )[0];
    const auditOf = (tool: string) =>
      sql<{ tool: string; status: string; actor_id: string; result: Record<string, unknown> }[]>(
        `SELECT tool, status, actor_id, result FROM audit_log WHERE outreach_task_id = $1 AND tool = $2`,
        [claim.taskId, tool],
      );
    const before = await draftRow();
    const timeout = before.expires_at.getTime() - before.created_at.getTime();
    expect(timeout).toBe(3_600_000);

    // Past its time, and later still: the admins get as long again from the sweep.
    const sweptAt = new Date(now.getTime() + 2 * 3_600_000);
    const report = await sut.expire(sweptAt, 50);
    expect(report.escalated).toBeGreaterThanOrEqual(1);
    expect(await draftRow()).toEqual({
      status: 'awaiting_review',
      on_expiry: 'reject',
      escalated_at: sweptAt,
      created_at: before.created_at,
      expires_at: new Date(sweptAt.getTime() + timeout),
    });
    expect(await usedOf(claim.campaignId)).toBe(1);
    expect(await taskOf(claim.taskId)).toEqual({ status: 'AwaitingReview', last_error: null });
    expect(await auditOf('escalate_draft')).toEqual([
      {
        tool: 'escalate_draft',
        status: 'succeeded',
        actor_id: claim.ownerId,
        result: {
          draftId,
          decision: 'escalated',
          action: 'linkedin_scrape_profile',
          expiresAt: new Date(sweptAt.getTime() + timeout).toISOString(),
        },
      },
    ]);
    expect(await auditOf('expire_draft')).toEqual([]);
    // In the admins' queue, with its owner's email; and only once escalated is it an admin's to decide.
    expect(await sut.escalatedOwner(draftId)).toBe(claim.ownerId);
    const queue = await sut.listEscalated(100, null);
    const [owner] = await sql<{ email: string }[]>(`SELECT email FROM users WHERE id = $1`, [claim.ownerId]);
    expect(queue.items.filter((draft) => draft.id === draftId)).toEqual([
      expect.objectContaining({
        id: draftId,
        status: 'awaiting_review',
        ownerId: claim.ownerId,
        ownerEmail: owner.email,
        escalatedAt: sweptAt,
      }),
    ]);
    // A sweep before the new expiry changes nothing more.
    await sut.expire(new Date(sweptAt.getTime() + timeout - 1000), 50);
    expect((await draftRow()).status).toBe('awaiting_review');
    expect(await auditOf('escalate_draft')).toHaveLength(1);

    // The admins' time runs out undecided: it expires, its task cancelled as the reject fallback does.
    await sut.expire(new Date(sweptAt.getTime() + timeout + 1000), 50);
    expect(await draftRow()).toEqual(expect.objectContaining({ status: 'expired' }));
    expect(await usedOf(claim.campaignId)).toBe(0);
    expect(await taskOf(claim.taskId)).toEqual({ status: 'Cancelled', last_error: 'REVIEW_EXPIRED' });
    expect(await auditOf('expire_draft')).toEqual([
      expect.objectContaining({
        status: 'succeeded',
        result: expect.objectContaining({
          draftId,
          decision: 'expired',
          taskLastError: 'REVIEW_EXPIRED',
          escalated: true,
          message: 'The draft expired undecided after 3 hours, so nothing was sent and its task was cancelled.',
        }),
      }),
    ]);
    expect((await sut.listEscalated(100, null)).items.map((draft) => draft.id)).not.toContain(draftId);
  });

  it('lets an admin decide only an escalated draft, as its reviewer', async () => {
    const admin = await addUser(db.database);
    const plain = await held({ onExpiry: 'escalate' });
    const asAdmin = (draft: { claim: ClaimedTask; draftId: string; argumentsHash: string }) => ({
      ownerId: draft.claim.ownerId,
      draftId: draft.draftId,
      argumentsHash: draft.argumentsHash,
      reviewerId: admin.id,
      escalatedOnly: true,
      now,
    });
    // Not escalated (its time has not run out): no admin may decide it, and nothing changes.
    expect(await sut.escalatedOwner(plain.draftId)).toBeNull();
    expect(await sut.approve({ ...asAdmin(plain), edited: null })).toEqual({ ok: false, problem: 'not_found' });
    expect(await sut.reject(asAdmin(plain))).toEqual({ ok: false, problem: 'not_found' });
    expect(await taskOf(plain.claim.taskId)).toEqual({ status: 'AwaitingReview', last_error: null });

    const sweptAt = new Date(now.getTime() + 2 * 3_600_000);
    await sut.expire(sweptAt, 50);
    const approved = await sut.approve({ ...asAdmin(plain), edited: null, now: sweptAt });
    expect(approved).toEqual({ ok: true, draft: expect.objectContaining({ status: 'approved', reviewerId: admin.id }) });
    expect(await sut.approve({ ...asAdmin(plain), edited: null, now: sweptAt })).toEqual({
      ok: false,
      problem: 'not_awaiting_review',
      status: 'approved',
    });
    expect(await taskOf(plain.claim.taskId)).toEqual({ status: 'Pending', last_error: null });
    const [row] = await sql<{ actor_id: string; result: Record<string, unknown> }[]>(
      `SELECT actor_id, result FROM audit_log WHERE outreach_task_id = $1 AND tool = 'approve_draft'`,
      [plain.claim.taskId],
    );
    expect(row).toEqual({ actor_id: admin.id, result: expect.objectContaining({ decision: 'approved', reviewerId: admin.id }) });
  });
});
