import { randomUUID } from 'node:crypto';
import { ErasedAddressKey } from '../../src/infrastructure/security/erased-address-key';
import type { ClaimedTask, ClaimedWork, OutreachDecision } from '../../src/application/outreach/ports/outreach-cycle-store.port';
import type { ActionKind } from '../../src/domain/outreach/outreach-task';
import { addDays, type OwnerLimits, slotLimits } from '../../src/domain/outreach/quota';
import { AuditAppender } from '../../src/infrastructure/persistence/tables/audit-log';
import { PostgresCampaignRepository } from '../../src/infrastructure/persistence/repositories/postgres-campaign.repository';
import { PostgresOutreachCycleStore } from '../../src/infrastructure/persistence/repositories/postgres-outreach-cycle-store';
import { readQuota, refusalOf, reserveSlots, type Slot } from '../../src/infrastructure/persistence/tables/quota-ledger';
import type { Sql } from '../../src/infrastructure/persistence/sql';
import { RecordingMetrics } from '../fakes/recording-metrics';
import { useOpenDatabase } from '../support/persistence';
import { addActiveCampaign, aLead, uniqueSlug } from '../factories/campaigns';
import { anOutreachDecision } from '../factories/conversations';
import { addUser } from '../factories/users';

/**
 * The quota reservation (quota-ledger.ts reserveSlots, through PostgresOutreachCycleStore.begin):
 * a day's and a rolling week's limits checked in the one reservation, exact when reservations
 * race (truly at once on PostgreSQL; one after another on PGlite, which has one connection).
 */
describe(`the quota reservation on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();
  let campaigns: PostgresCampaignRepository;
  let store: PostgresOutreachCycleStore;
  const metrics = new RecordingMetrics();
  /** Wednesday 2026-11-18, 14:20 UTC. */
  const now = new Date('2026-11-18T14:20:00.000Z');
  const today = '2026-11-18';
  const midnight = (day: string) => new Date(`${day}T00:00:00.000Z`);

  beforeAll(() => {
    campaigns = new PostgresCampaignRepository(db.database);
    store = new PostgresOutreachCycleStore(db.database, new AuditAppender(metrics), ErasedAddressKey.derive('test secret'));
  });

  const sql = <T>(query: string, parameters: unknown[] = []) => db.database.query<T>(query, parameters);
  /** One slot on its own: whether it was taken. */
  const reserveSlot = async (db: Sql, slot: Slot) => (await reserveSlots(db, [slot])) === null;
  const newOwner = async () => (await addUser(db.database)).id;
  /** Slots taken on `day` before, as the ledger holds them (e.g. before weekly limits existed). */
  const taken = (scope: 'campaign' | 'owner', scopeId: string, kind: ActionKind, day: string, used: number) =>
    sql(`INSERT INTO quota_ledger (scope, scope_id, kind, day, used, "limit") VALUES ($1, $2, $3, $4, $5, 100)`, [
      scope,
      scopeId,
      kind,
      day,
      used,
    ]);
  const ledgerSum = async (scope: string, scopeId: string, kind: ActionKind, from: string) =>
    Number(
      (
        await sql<{ n: string }[]>(
          `SELECT coalesce(sum(used), 0) AS n FROM quota_ledger WHERE scope = $1 AND scope_id = $2 AND kind = $3 AND day >= $4`,
          [scope, scopeId, kind, from],
        )
      )[0].n,
    );

  it('never passes a weekly limit when reservations race, across a midnight too, counting the days taken before', async () => {
    const ownerId = randomUUID();
    // 3 messages 2 days ago (slots from before weekly limits: the ledger already holds them) and
    // 1 eight days ago, outside the week. Weekly limit 7: 4 slots are left, whatever the daily limit.
    await taken('owner', ownerId, 'linkedin_message', addDays(today, -2), 3);
    await taken('owner', ownerId, 'linkedin_message', addDays(today, -8), 1);
    const slot = (day: string): Slot => ({
      scope: 'owner',
      scopeId: ownerId,
      kind: 'linkedin_message',
      day,
      limits: { day: 100, week: 7 },
    });
    // Half the racers are late by a midnight: a cycle that began yesterday reserves on yesterday's row.
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        db.database.transaction((manager) => reserveSlot(manager, slot(i % 2 ? today : addDays(today, -1)))),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(4);
    expect(await ledgerSum('owner', ownerId, 'linkedin_message', addDays(today, -6))).toBe(7);

    // Refused with the week, until Nov 16 (its oldest counted day) leaves the window: the start of Nov 23.
    const block = await db.database.transaction((manager) => refusalOf(manager, slot(today), now));
    expect(block).toEqual({ kind: 'linkedin_message', scope: 'owner', window: 'week', limit: 7, used: 7, until: midnight('2026-11-23') });
    // A week later, Nov 16 has left: a reservation on Nov 23 finds 3 places (the 4 of Nov 17 and 18 still count).
    const later = await Promise.all(
      Array.from({ length: 5 }, () => db.database.transaction((manager) => reserveSlot(manager, slot('2026-11-23')))),
    );
    expect(later.filter(Boolean)).toHaveLength(3);
  });

  it('never passes a daily limit either, and takes no slot with a limit of 0', async () => {
    const campaignId = randomUUID();
    const slot: Slot = { scope: 'campaign', scopeId: campaignId, kind: 'email', day: today, limits: { day: 3, week: null } };
    const results = await Promise.all(Array.from({ length: 8 }, () => db.database.transaction((manager) => reserveSlot(manager, slot))));
    expect(results.filter(Boolean)).toHaveLength(3);
    expect(await db.database.transaction((manager) => refusalOf(manager, slot, now))).toEqual({
      kind: 'email',
      scope: 'campaign',
      window: 'day',
      limit: 3,
      used: 3,
      until: midnight('2026-11-19'),
    });
    const closed: Slot = { ...slot, scopeId: randomUUID(), limits: { day: 10, week: 0 } };
    expect(await db.database.transaction((manager) => reserveSlot(manager, closed))).toBe(false);
  });

  describe('through the cycle store', () => {
    const ownerLimits: OwnerLimits = {
      daily: { profile_lookup: 100, linkedin_message: 100, email: 100 },
      weekly: { profile_lookup: 500, linkedin_message: 5, email: 500 },
    };

    /** An active campaign whose look-ups are done, so that its LinkedIn messages are due. */
    async function messagesDue(ownerId: string, leads: number, weeklyLimits: Record<string, number | null> = {}): Promise<string> {
      const slugs = Array.from({ length: leads }, () => `lead-${uniqueSlug()}`);
      const campaignId = await addActiveCampaign(db.database, ownerId, {
        now,
        campaign: { name: 'Weekly', weeklyLimits },
        leads: slugs.map((slug) => aLead(slug, { name: slug })),
      });
      await sql(`UPDATE outreach_tasks SET status = 'Completed', completed_at = $2 WHERE campaign_id = $1 AND type = 'ScrapeProfile'`, [
        campaignId,
        now,
      ]);
      return campaignId;
    }

    /** Begins the action of a task claimed with its context (after `meanwhile`). */
    async function begin({ claim, loaded }: ClaimedWork, meanwhile?: () => Promise<unknown>) {
      const { context } = loaded;
      await meanwhile?.();
      const decisionId = randomUUID();
      const profileUrl = context.lead.linkedinUrl;
      return {
        context,
        result: await store.begin({
          claim,
          decisionId,
          proposal: { action: 'linkedin_send_message', args: { profileUrl, message: 'Hello there' }, reason: 'The task asks for it.' },
          kind: 'linkedin_message',
          channel: 'linkedin',
          idempotencyMaterial: `${claim.taskId}:${claim.attempts}`,
          limits: slotLimits(context.quota, 'linkedin_message'),
          day: today,
          now,
          leaseMs: 60_000,
          audit: {
            source: 'outreach',
            actorId: claim.ownerId,
            campaignId: claim.campaignId,
            outreachTaskId: claim.taskId,
            decisionId,
            tool: 'linkedin_send_message',
            arguments: { profileUrl, message: 'Hello there' },
            securityEvents: [],
          },
        }),
      };
    }

    const claim = async (campaignId: string) =>
      (await store.claimTask({ workerId: 'worker-1', now, leaseMs: 60_000, campaignId, day: today, ownerLimits, secretNames: [] }))!;

    it("reserves within the campaign's and the owner's weeks, refuses with the limit that binds, and a refund gives the week back", async () => {
      const ownerId = await newOwner();
      await taken('owner', ownerId, 'linkedin_message', addDays(today, -2), 3);
      const first = await messagesDue(ownerId, 3, { linkedin_message: 1 });
      const second = await messagesDue(ownerId, 3);

      // The context knows both weeks: the campaign's own limit of 1, the owner's 5 with 3 taken.
      const claimed = await claim(first);
      // Read by the claim's own statement: the task as the claim left it.
      expect(claimed.loaded.context.task).toEqual({
        id: claimed.claim.taskId,
        type: 'SendLinkedInMessage',
        status: 'InProgress',
        attempts: 1,
        lastError: null,
      });
      const one = await begin(claimed);
      expect(one.context.quota.linkedin_message).toEqual({
        campaign: { used: 0, limit: 50, week: { used: 0, limit: 1, byDay: {} } },
        owner: { used: 0, limit: 100, week: { used: 3, limit: 5, byDay: { [addDays(today, -2)]: 3 } } },
      });
      expect(one.result.status).toBe('reserved');

      // The campaign's week is full: its next message is refused, until a week after today.
      const two = await begin(await claim(first));
      expect(two.result).toEqual({
        status: 'quota_exceeded',
        scope: 'campaign',
        block: { kind: 'linkedin_message', scope: 'campaign', window: 'week', limit: 1, used: 1, until: midnight('2026-11-25') },
      });

      // The other campaign has room of its own; the owner's week takes one more, then is full.
      const three = await begin(await claim(second));
      expect(three.result.status).toBe('reserved');
      const four = await begin(await claim(second));
      expect(four.context.quota.linkedin_message.owner.week).toMatchObject({ used: 5, limit: 5 });
      expect(four.result).toMatchObject({
        status: 'quota_exceeded',
        scope: 'owner',
        block: { window: 'week', limit: 5, used: 5, until: midnight('2026-11-23') },
      });

      // The channel refused the first message: its slot goes back to the day, so to both weeks too.
      if (one.result.status !== 'reserved') throw new Error('not reserved');
      await store.finish({
        actionId: one.result.actionId,
        taskId: one.context.task.id,
        pendingSeq: one.result.pendingSeq,
        audit: {
          source: 'outreach',
          actorId: ownerId,
          campaignId: first,
          outreachTaskId: one.context.task.id,
          tool: 'linkedin_send_message',
          arguments: {},
          securityEvents: [],
        },
        outcome: { status: 'failed', errorCode: 'RATE_LIMITED', errorMessage: 'Rate limited.', durationMs: 1 },
        task: { status: 'Pending', nextRunAt: now, lastError: 'RATE_LIMITED' },
        refundQuota: { day: today },
        now,
      });
      const campaign = (await campaigns.get(ownerId, second))!;
      const quota = await readQuota(db.database, campaign, ownerLimits, today);
      expect(quota.linkedin_message.owner.week).toEqual({ used: 4, limit: 5, byDay: { [addDays(today, -2)]: 3, [today]: 1 } });
      expect((await begin(await claim(second))).result.status).toBe('reserved');
    });

    const writtenFor = async (taskId: string) =>
      (
        await sql<{ actions: number; audits: number; used: number }[]>(
          `SELECT (SELECT count(*) FROM outreach_actions WHERE task_id = $1)::int AS actions,
                  (SELECT count(*) FROM audit_log WHERE outreach_task_id = $1)::int AS audits,
                  (SELECT coalesce(sum(used), 0) FROM quota_ledger q JOIN outreach_tasks t ON q.scope_id = t.campaign_id WHERE t.id = $1)::int AS used`,
          [taskId],
        )
      )[0];

    /** Audit rows counted for /metrics by `work`: only those committed. */
    const counting = async (work: () => Promise<unknown>) => {
      const counted = () => metrics.calls.filter((call) => call.name === 'auditRowAppended').length;
      const before = counted();
      await work();
      return counted() - before;
    };

    it('begins an action only under the lease: once another worker holds the task, nothing is written', async () => {
      const mine = await claim(await messagesDue(await newOwner(), 1));
      // The lease expired and another worker claimed the task while this one was planning.
      const stolen = () =>
        sql(`UPDATE outreach_tasks SET lease_owner = 'worker-2', attempts = attempts + 1 WHERE id = $1`, [mine.claim.taskId]);

      expect(await counting(async () => expect((await begin(mine, stolen)).result).toEqual({ status: 'lease_lost' }))).toBe(0);
      expect(await writtenFor(mine.claim.taskId)).toEqual({ actions: 0, audits: 0, used: 0 });
    });

    it('begins the same action once: the second begin is a duplicate and writes nothing more', async () => {
      const mine = await claim(await messagesDue(await newOwner(), 1));
      let first: Awaited<ReturnType<typeof begin>> | undefined;
      expect(await counting(async () => (first = await begin(mine)))).toBe(1);
      expect(first!.result.status).toBe('reserved');
      // The pending row the action names is the one written with it.
      const [action] = await sql<{ pending: string; status: string }[]>(
        `SELECT a.pending_audit_seq AS pending, l.status FROM outreach_actions a JOIN audit_log l ON l.seq = a.pending_audit_seq WHERE a.task_id = $1`,
        [mine.claim.taskId],
      );
      expect(action).toEqual({ pending: String((first!.result as { pendingSeq: number }).pendingSeq), status: 'pending' });
      const idempotencyKey = (first!.result as { idempotencyKey: string }).idempotencyKey;
      expect(await counting(async () => expect((await begin(mine)).result).toEqual({ status: 'duplicate', idempotencyKey }))).toBe(0);
      expect(await writtenFor(mine.claim.taskId)).toEqual({ actions: 1, audits: 1, used: 1 });
    });

    it("writes the cycle's decision row with the settlement: when the sweeper settled the action first, and with a refund", async () => {
      const ownerId = await newOwner();
      const campaignId = await messagesDue(ownerId, 2);
      const decisionOf = (claim: ClaimedTask, status: string): OutreachDecision =>
        anOutreachDecision(
          { ownerId, campaignId, taskId: claim.taskId },
          { decisionType: 'linkedin_send_message', status, durationMs: 5, createdAt: now },
        );
      const settle = async () => {
        const work = await claim(campaignId);
        const { result } = await begin(work);
        if (result.status !== 'reserved') throw new Error(result.status);
        return { claimed: work.claim, result };
      };
      const finishWith = (
        claimed: ClaimedTask,
        result: { actionId: string; pendingSeq: number },
        refund: boolean,
        decision: OutreachDecision,
      ) =>
        store.finish({
          actionId: result.actionId,
          taskId: claimed.taskId,
          pendingSeq: result.pendingSeq,
          audit: {
            source: 'outreach',
            actorId: ownerId,
            campaignId,
            outreachTaskId: claimed.taskId,
            tool: 'linkedin_send_message',
            arguments: {},
            securityEvents: [],
          },
          outcome: refund
            ? { status: 'failed', errorCode: 'RATE_LIMITED', errorMessage: 'Rate limited.', durationMs: 1 }
            : { status: 'succeeded', durationMs: 1 },
          task: refund ? { status: 'Pending', nextRunAt: now, lastError: 'RATE_LIMITED' } : { status: 'Completed', lastError: null },
          refundQuota: refund ? { day: today } : null,
          now,
          decision,
        });
      const decided = async (id: string) => (await sql<{ status: string }[]>(`SELECT status FROM decision_logs WHERE id = $1`, [id]))[0];

      // The sweeper settled the action while the channel was slow: its record stands, no outcome row, but the decision is written.
      const first = await settle();
      await sql(`UPDATE outreach_actions SET status = 'unknown' WHERE id = $1`, [first.result.actionId]);
      const swept = decisionOf(first.claimed, 'completed');
      await finishWith(first.claimed, first.result, false, swept);
      expect(await decided(swept.id)).toEqual({ status: 'completed' });
      expect(await writtenFor(first.claimed.taskId)).toMatchObject({ actions: 1, audits: 1 });

      // The channel refused: the slot goes back, the outcome row and the decision are written in one transaction.
      const second = await settle();
      const refused = decisionOf(second.claimed, 'deferred');
      await finishWith(second.claimed, second.result, true, refused);
      expect(await decided(refused.id)).toEqual({ status: 'deferred' });
      expect(await writtenFor(second.claimed.taskId)).toEqual({ actions: 1, audits: 2, used: 1 });
    });

    it('counts no audit row for a begin the quota refused: its pending row was rolled back', async () => {
      const mine = await claim(await messagesDue(await newOwner(), 1, { linkedin_message: 0 }));
      expect(
        await counting(async () => expect((await begin(mine)).result).toMatchObject({ status: 'quota_exceeded', scope: 'campaign' })),
      ).toBe(0);
      expect(await writtenFor(mine.claim.taskId)).toEqual({ actions: 0, audits: 0, used: 0 });
    });
  });
});
