import type { ToolAuditEntry } from '../../src/application/audit/ports/audit-log.port';
import type { ClaimedTask } from '../../src/application/outreach/ports/outreach-cycle-store.port';
import type { DraftProposal } from '../../src/domain/outreach/review';
import type { DataSource } from 'typeorm';
import { openDatabase } from '../../src/infrastructure/persistence/database';
import { AuditAppender } from '../../src/infrastructure/persistence/tables/audit-log';
import { PostgresOutreachCycleStore } from '../../src/infrastructure/persistence/repositories/postgres-outreach-cycle-store';
import {
  draftArgumentsHash,
  PostgresOutreachDraftStore,
} from '../../src/infrastructure/persistence/repositories/postgres-outreach-draft-store';
import { markDraftSent } from '../../src/infrastructure/persistence/tables/outreach-drafts';
import { RecordingMetrics } from '../fakes/recording-metrics';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { addActiveCampaign, aLead, uniqueSlug } from '../factories/campaigns';
import { addUser } from '../factories/users';

describe(`${PostgresOutreachDraftStore.name} on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  let testDb: TestDatabase;
  let database: DataSource;
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

  beforeAll(async () => {
    testDb = await createTestDatabase();
    database = await openDatabase(testDb.settings);
    const appender = new AuditAppender(new RecordingMetrics());
    cycles = new PostgresOutreachCycleStore(database, appender);
    sut = new PostgresOutreachDraftStore(database, appender);
  });

  afterAll(async () => {
    await database?.destroy();
    await testDb?.dispose();
  });

  const sql = <T>(query: string, parameters: unknown[] = []) => database.query<T>(query, parameters);

  /** A campaign in `all` mode with one lead, its look-up claimed. */
  async function claimed(): Promise<{ claim: ClaimedTask; proposal: DraftProposal; audit: ToolAuditEntry }> {
    const owner = await addUser(database);
    const slug = uniqueSlug();
    const campaignId = await addActiveCampaign(database, owner.id, {
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

  async function held(options: { onExpiry?: 'reject' } = {}) {
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
    const [sent, again] = [await markDraftSent(database, draftId, now), await markDraftSent(database, draftId, now)];
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
  });

  it("rejects a policy reviewer's draft past its time when the rule's fallback is reject: slot back, task cancelled, audited", async () => {
    const { claim, draftId } = await held({ onExpiry: 'reject' });
    await sut.expire(new Date(now.getTime() + 2 * 3_600_000), 50);
    expect(await usedOf(claim.campaignId)).toBe(0);
    expect(await taskOf(claim.taskId)).toEqual({ status: 'Cancelled', last_error: 'REVIEW_TIMED_OUT' });
    const rows = await sql<{ tool: string; status: string; result: Record<string, unknown> }[]>(
      `SELECT tool, status, result FROM audit_log WHERE outreach_task_id = $1 AND tool = 'expire_draft'`,
      [claim.taskId],
    );
    expect(rows).toEqual([
      { tool: 'expire_draft', status: 'succeeded', result: expect.objectContaining({ draftId, decision: 'expired', fallback: 'reject' }) },
    ]);
  });
});
