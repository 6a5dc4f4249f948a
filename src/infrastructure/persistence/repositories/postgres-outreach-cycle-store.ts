import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  OutreachCycleStore,
  type BeginAction,
  type BeginResult,
  type ClaimInput,
  type ClaimedTask,
  type ClaimedWork,
  type FinishAction,
  type OpenedDecision,
  type OutreachDecision,
  type StaleAction,
  type TaskRelease,
  type WrapUpContext,
} from '../../../application/outreach/ports/outreach-cycle-store.port';
import { actionTarget } from '../../../domain/outreach/actions';
import { ActionCatalog, BUILT_IN_ACTIONS } from '../../../domain/outreach/action-catalog';
import { type ActionKind } from '../../../domain/outreach/outreach-task';
import type { OwnerLimits, QuotaScope } from '../../../domain/outreach/quota';
import { changeRows, empty, exists, run, selectRow, selectRows, type Sql, sql, type Statement } from '../sql';
import { z } from 'zod';
import { AuditAppender } from '../tables/audit-log';
import { abandonedCycleDecisions, cycleDecision } from '../tables/decision-logs';
import { enqueueNotification } from '../tables/notifications';
import { markDraftSent } from '../tables/outreach-drafts';
import { OPEN } from '../tables/outreach-tasks';
import { refundSlot, refusalOf, reserveSlots, slotsOf } from '../tables/quota-ledger';
import { claimWithContext, readWrapUpContext } from './postgres-outreach-cycle-store/cycle-context';
import { ErasedAddressKey } from '../../security/erased-address-key';

const FINISHED_CAMPAIGN_ROW = z.object({ id: z.string(), owner_id: z.string() });
/** A campaign just completed: whose, and how its tasks ended. */
const FINISHED_ROW = z.object({ owner_id: z.string(), completed: z.number(), failed: z.number(), cancelled: z.number() });

/**
 * What begin's statement reads back: whether the lease held, the new action's id (null for a
 * duplicate) and its pending audit row's seq (a bigserial, which comes back as text).
 */
const BEGUN_ROW = z.object({ held: z.boolean(), id: z.string().nullable(), pending_seq: z.coerce.number().int().nullable() });

const COUNT_ROW = z.object({ n: z.number() });

const STALE_ACTION_ROW = z.object({
  id: z.string(),
  task_id: z.string(),
  campaign_id: z.string(),
  owner_id: z.string(),
  decision_id: z.string(),
  pending_audit_seq: z.coerce.number().int(),
  action: z.string(),
  args: z.record(z.string(), z.unknown()),
  channel: z.string(),
  idempotency_key: z.string(),
});

/** Thrown inside a transaction to roll it back with an answer. */
class Rollback extends Error {
  constructor(readonly result: BeginResult) {
    super(`rolled back: ${result.status}`);
  }
}

/**
 * The outreach cycle in PostgreSQL. What a cycle reads before the model is asked (the claim
 * and its context, a wrap-up's context) is in ./postgres-outreach-cycle-store/cycle-context.ts;
 * here is what it writes after: the action begun and finished, the task released, and the
 * sweeper's statements. Audit rows go through AuditAppender, decision rows through
 * tables/decision-logs.ts, quota slots through tables/quota-ledger.ts.
 */
@Injectable()
export class PostgresOutreachCycleStore extends OutreachCycleStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditAppender,
    private readonly erasedKey: ErasedAddressKey,
    private readonly actions: ActionCatalog = BUILT_IN_ACTIONS,
  ) {
    super();
  }

  async findFinishedCampaign(input: { campaignId?: string }): Promise<{ campaignId: string; ownerId: string } | null> {
    const campaignId = sql`${input.campaignId ?? null}::uuid`;
    const row = await selectRow(
      this.dataSource,
      sql`SELECT c.id, c.owner_id FROM campaigns c
          WHERE c.status = 'active' AND (${campaignId} IS NULL OR c.id = ${campaignId})
            AND EXISTS (SELECT 1 FROM outreach_tasks t WHERE t.campaign_id = c.id)
            AND NOT EXISTS (SELECT 1 FROM outreach_tasks t WHERE t.campaign_id = c.id AND t.status IN ${OPEN})
          ORDER BY c.updated_at LIMIT 1`,
      FINISHED_CAMPAIGN_ROW,
    );
    return row ? { campaignId: row.id, ownerId: row.owner_id } : null;
  }

  claimTask(input: ClaimInput): Promise<ClaimedWork | null> {
    return claimWithContext(this.dataSource, input, this.erasedKey, this.actions);
  }

  loadWrapUpContext(
    campaignId: string,
    input: { day: string; ownerLimits: OwnerLimits; decision?: OpenedDecision },
  ): Promise<WrapUpContext | null> {
    return readWrapUpContext(this.dataSource, campaignId, input);
  }

  async releaseTask(claim: ClaimedTask, release: TaskRelease, now: Date, decision?: OutreachDecision): Promise<boolean> {
    const row = await selectRow(
      this.dataSource,
      releaseStatement({
        decision,
        where: sql`id = ${claim.taskId} AND lease_owner = ${claim.workerId} AND attempts = ${claim.attempts} AND status = 'InProgress'`,
        release,
        now,
        select: sql`(SELECT count(*) FROM released)::int AS n`,
      }),
      COUNT_ROW,
    );
    return row!.n === 1;
  }

  async deferKind(input: {
    ownerId: string;
    campaignId: string;
    scope: QuotaScope;
    kind: ActionKind;
    until: Date;
    now: Date;
  }): Promise<number> {
    const types = this.actions.taskTypesOf(input.kind);
    const until = sql`${input.until}::timestamptz`;
    return changeRows(
      this.dataSource,
      sql`UPDATE outreach_tasks t SET next_run_at = ${until}, last_error = 'QUOTA_EXCEEDED', updated_at = ${input.now}
          FROM campaigns c
          WHERE c.id = t.campaign_id AND t.status = 'Pending' AND t.type = ANY(${types}::text[]) AND t.next_run_at < ${until}
            AND ${input.scope === 'campaign' ? sql`t.campaign_id = ${input.campaignId}` : sql`c.owner_id = ${input.ownerId}`}`,
    );
  }

  async begin(input: BeginAction): Promise<BeginResult> {
    const idempotencyKey = createHash('sha256').update(input.idempotencyMaterial).digest('hex');
    const leaseExpiresAt = new Date(input.now.getTime() + input.leaseMs);
    try {
      return await this.audit.transaction(this.dataSource, async (manager) => {
        const { claim, proposal } = input;
        // One round trip for the pending audit row, the lease (checked, and extended over the
        // call) and the action row: no action row without the lease, none without its audit row.
        const pending = { status: 'pending' } as const;
        const row = await selectRow(
          manager,
          sql`WITH held AS (
                UPDATE outreach_tasks SET lease_expires_at = ${leaseExpiresAt}
                WHERE id = ${claim.taskId} AND lease_owner = ${claim.workerId} AND attempts = ${claim.attempts} AND status = 'InProgress'
                RETURNING id),
              audited AS (${this.audit.insertWhen(sql`EXISTS (SELECT 1 FROM held)`, input.audit, pending, null)}),
              inserted AS (
                INSERT INTO outreach_actions (task_id, campaign_id, owner_id, decision_id, action, kind, channel, target, args,
                  idempotency_key, status, pending_audit_seq, lease_expires_at, created_at)
                SELECT held.id, ${claim.campaignId}::uuid, ${claim.ownerId}::uuid, ${input.decisionId}::uuid, ${proposal.action}::varchar,
                  ${input.kind}::varchar, ${input.channel}::varchar, ${actionTarget(proposal) ?? ''}::varchar,
                  ${JSON.stringify({ ...proposal.args })}::jsonb, ${idempotencyKey}::varchar, 'in_flight', audited.seq,
                  ${leaseExpiresAt}::timestamptz, ${input.now}::timestamptz
                FROM held, audited
                ON CONFLICT (idempotency_key) DO NOTHING RETURNING id)
              SELECT EXISTS (SELECT 1 FROM held) AS held, (SELECT id FROM inserted) AS id, (SELECT seq FROM audited) AS pending_seq`,
          BEGUN_ROW,
        );
        if (!row!.held) throw new Rollback({ status: 'lease_lost' });
        if (row!.id === null) throw new Rollback({ status: 'duplicate', idempotencyKey });
        const actionId = row!.id;
        const pendingSeq = row!.pending_seq!;
        this.audit.counted(input.audit, pending);
        // Reviewed and approved: its slot is held since it was drafted; it runs once.
        if (input.approvedDraftId !== undefined && !(await markDraftSent(manager, input.approvedDraftId, input.now)))
          throw new Rollback({ status: 'duplicate', idempotencyKey });
        if (input.approvedDraftId === undefined) {
          // The day's and the rolling week's limits of both scopes in one reservation (quota-ledger.ts), last:
          // its counters stay locked until the commit, and every other reservation of them waits meanwhile.
          const refused = await reserveSlots(manager, slotsOf(claim, input));
          if (refused)
            throw new Rollback({ status: 'quota_exceeded', scope: refused.scope, block: await refusalOf(manager, refused, input.now) });
        }
        return { status: 'reserved' as const, actionId, idempotencyKey, pendingSeq };
      });
    } catch (error) {
      if (error instanceof Rollback) return error.result;
      throw error;
    }
  }

  async finish(input: FinishAction): Promise<void> {
    const { outcome } = input;
    // The action is settled unless someone (the sweeper) settled it first, whose record then
    // stands; only then the task is left as the outcome says, with its lead, and the outcome
    // row written.
    const settled = sql`settled AS (
      UPDATE outreach_actions
      SET status = ${outcome.status}, result = ${outcome.result === undefined ? null : JSON.stringify(outcome.result)}::jsonb,
          error_code = ${outcome.errorCode ?? null}::varchar, finished_at = ${input.now}
      WHERE id = ${input.actionId} AND status = 'in_flight'
      RETURNING id)`;
    const release = (before: Statement, db: Sql) =>
      selectRow(
        db,
        releaseStatement({
          before,
          decision: input.decision,
          where: sql`id = ${input.taskId} AND EXISTS (SELECT 1 FROM settled)`,
          release: input.task,
          now: input.now,
          select: sql`(SELECT count(*) FROM settled)::int AS n`,
        }),
        COUNT_ROW,
      );
    if (input.refundQuota) {
      const { refundQuota } = input;
      // Nothing happened: the slot goes back in the same transaction.
      await this.audit.transaction(this.dataSource, async (manager, append) => {
        if ((await release(settled, manager))!.n === 0) return;
        await refundSlot(manager, input.actionId, refundQuota.day);
        await append(input.audit, outcome, input.pendingSeq);
      });
      return;
    }
    // One statement, one round trip: the settlement, the task's release, the outcome row and the decision row.
    const audited = this.audit.insertWhen(sql`EXISTS (SELECT 1 FROM settled)`, input.audit, outcome, input.pendingSeq);
    if ((await release(sql`${settled}, audited AS (${audited})`, this.dataSource))!.n > 0) this.audit.counted(input.audit, outcome);
  }

  async completeCampaign(campaignId: string, now: Date): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      // The row lock waits for an import in progress (it locks the campaign too); the count
      // that follows, a new statement, then sees the tasks that import added.
      if (!(await exists(manager, sql`SELECT 1 FROM campaigns WHERE id = ${campaignId} AND status = 'active' FOR UPDATE`))) return false;
      if (await exists(manager, sql`SELECT 1 FROM outreach_tasks WHERE campaign_id = ${campaignId} AND status IN ${OPEN} LIMIT 1`))
        return false;
      // Its owner is told (campaign.finished) in the same transaction, with the tasks' outcomes as they closed.
      const done = await selectRow(
        manager,
        sql`WITH c AS (UPDATE campaigns SET status = 'completed', completed_at = ${now}, updated_at = ${now} WHERE id = ${campaignId}
                       RETURNING owner_id)
            SELECT c.owner_id,
              (SELECT count(*)::int FROM outreach_tasks WHERE campaign_id = ${campaignId} AND status = 'Completed') AS completed,
              (SELECT count(*)::int FROM outreach_tasks WHERE campaign_id = ${campaignId} AND status = 'Failed') AS failed,
              (SELECT count(*)::int FROM outreach_tasks WHERE campaign_id = ${campaignId} AND status = 'Cancelled') AS cancelled
            FROM c`,
        FINISHED_ROW,
      );
      const { owner_id: recipientId, ...tasks } = done!;
      await enqueueNotification(manager, {
        recipientId,
        event: 'campaign.finished',
        subject: { kind: 'campaign', id: campaignId },
        facts: tasks,
        at: now,
      });
      return true;
    });
  }

  async recordDecision(decision: OutreachDecision): Promise<void> {
    await run(this.dataSource, cycleDecision(decision));
  }

  async claimStaleActions(input: { now: Date; leaseMs: number; limit: number }): Promise<StaleAction[]> {
    const rows = await selectRows(
      this.dataSource,
      sql`UPDATE outreach_actions a SET lease_expires_at = ${new Date(input.now.getTime() + input.leaseMs)}
          WHERE a.id IN (SELECT s.id FROM outreach_actions s WHERE s.status = 'in_flight' AND s.lease_expires_at < ${input.now}
                         ORDER BY s.lease_expires_at LIMIT ${input.limit} FOR UPDATE SKIP LOCKED)
          RETURNING a.id, a.task_id, a.campaign_id, a.owner_id, a.decision_id, a.pending_audit_seq, a.action, a.args, a.channel,
            a.idempotency_key`,
      STALE_ACTION_ROW,
    );
    return rows.map((row) => ({
      actionId: row.id,
      taskId: row.task_id,
      campaignId: row.campaign_id,
      ownerId: row.owner_id,
      decisionId: row.decision_id,
      pendingSeq: row.pending_audit_seq,
      proposal: { action: row.action, args: row.args, reason: 'recovered after its worker stopped' },
      channel: row.channel,
      idempotencyKey: row.idempotency_key,
    }));
  }

  async closeAbandonedDecisions(input: { openedBefore: Date; limit: number }): Promise<number> {
    // A cycle that still settles its row later overwrites this (cycleDecision): what it did is the better record.
    return changeRows(this.dataSource, abandonedCycleDecisions(input));
  }
}

/** SET clause for a task's new state. */
function releaseSet(release: TaskRelease, now: Date): Statement {
  const status = sql`${release.status}::varchar`;
  const at = sql`${now}::timestamptz`;
  const output =
    release.output === undefined ? sql`output` : sql`${release.output === null ? null : JSON.stringify(release.output)}::jsonb`;
  return sql`status = ${status}, next_run_at = COALESCE(${release.nextRunAt ?? null}::timestamptz, next_run_at),
    output = ${output}, last_error = ${release.lastError ?? null}::varchar,
    lease_owner = NULL, lease_expires_at = NULL, updated_at = ${at},
    completed_at = CASE WHEN ${status} IN ('Completed', 'Failed', 'Cancelled') THEN ${at} ELSE NULL END`;
}

/**
 * One statement that leaves the task that `where` finds as `release` says (the CTE
 * `released`) and settles its lead: a lead is done when none of its tasks is open; on the
 * do-not-contact list, its other pending tasks are cancelled. `before` are CTEs that run
 * first, which `where` and `select` may name; `select` is what the statement answers. The
 * cycle's `decision` row, if given, is written by the statement whether or not it releases
 * the task.
 */
function releaseStatement(input: {
  before?: Statement;
  decision?: OutreachDecision;
  where: Statement;
  release: TaskRelease;
  now: Date;
  select: Statement;
}): Statement {
  const blocked = input.release.lastError === 'DO_NOT_CONTACT';
  const at = sql`${input.now}::timestamptz`;
  // The statement's parts see the tables as they were before it: the released task's own status is taken from its RETURNING.
  return sql`WITH ${input.before ? sql`${input.before},` : empty}
    ${input.decision ? sql`decided AS (${cycleDecision(input.decision)}),` : empty}
    released AS (
      UPDATE outreach_tasks SET ${releaseSet(input.release, input.now)} WHERE ${input.where} RETURNING id, lead_id, status),
    ${
      blocked
        ? sql`cancelled AS (
      UPDATE outreach_tasks o SET status = 'Cancelled', last_error = 'DO_NOT_CONTACT', completed_at = ${at}, updated_at = ${at}
      FROM released r WHERE o.lead_id = r.lead_id AND o.status = 'Pending' AND o.id <> r.id RETURNING o.id),`
        : empty
    }
    settled_lead AS (
      UPDATE leads l SET status = CASE
          WHEN ${blocked}::boolean THEN 'do_not_contact'
          WHEN r.status IN ${OPEN} OR EXISTS (SELECT 1 FROM outreach_tasks o WHERE o.lead_id = l.id AND o.id <> r.id AND o.status IN ${OPEN})
            THEN 'in_progress'
          ELSE 'done' END
      FROM released r WHERE l.id = r.lead_id RETURNING l.id)
    SELECT ${input.select}`;
}
