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
  type ApprovedDraft,
  type TaskRelease,
  type WrapUpContext,
} from '../../../application/outreach/ports/outreach-cycle-store.port';
import { actionTarget, type Proposal } from '../../../domain/outreach/actions';
import { CAMPAIGN_STATUSES } from '../../../domain/outreach/campaign';
import type { RecentResult } from '../../../domain/outreach/planning';
import { TASK_TYPES, TASK_ACTION, TASK_STATUSES, type ActionKind } from '../../../domain/outreach/outreach-task';
import type { OwnerLimits, QuotaScope } from '../../../domain/outreach/quota';
import { APPROVAL_MODES, type DraftProposal } from '../../../domain/outreach/review';
import { BRIEF_ROW_FIELDS, briefColumns, briefOfRow } from './campaign-brief-columns';
import { QUOTA_ROW, type QuotaCampaign, quotaRows, quotaStateOf, refundSlot, refusalOf, reserveSlots, slotsOf } from './quota-ledger';
import { changeRows, empty, exists, join, raw, run, selectRow, selectRows, type Sql, sql, type Statement } from '../sql';
import { z } from 'zod';
import { AuditAppender } from './postgres-audit-log';
import { PENDING_DECISION } from './postgres-conversation-store';
import { markDraftSent } from './postgres-outreach-draft-store';

/** AwaitingReview is open: its draft waits for a person, and it keeps the lead's later steps and the campaign waiting. */
const OPEN = raw(`('Pending', 'InProgress', 'AwaitingReview')`);

const CAMPAIGN_FIELDS = {
  campaign_id: z.string(),
  campaign_name: z.string(),
  campaign_status: z.enum(CAMPAIGN_STATUSES),
  owner_id: z.string(),
  limit_profile_lookup: z.number(),
  limit_linkedin_message: z.number(),
  limit_email: z.number(),
  weekly_limit_profile_lookup: z.number().nullable(),
  weekly_limit_linkedin_message: z.number().nullable(),
  weekly_limit_email: z.number().nullable(),
};
type CampaignRow = z.output<z.ZodObject<typeof CAMPAIGN_FIELDS>>;

const CAMPAIGN_COLUMNS = raw(`c.id AS campaign_id, c.name AS campaign_name, c.status AS campaign_status, c.owner_id,
  c.limit_profile_lookup, c.limit_linkedin_message, c.limit_email,
  c.weekly_limit_profile_lookup, c.weekly_limit_linkedin_message, c.weekly_limit_email`);

/** The campaign's brief and templates, for the planner's prompt. */
const BRIEF_COLUMNS = raw(briefColumns('c'));

const FINISHED_CAMPAIGN_ROW = z.object({ id: z.string(), owner_id: z.string() });

/** What the planner is shown of the campaign's past: its last 3 finished tasks, with the duration of their action. */
const RECENT_ROW = z.object({
  type: z.enum(TASK_TYPES),
  status: z.enum(TASK_STATUSES),
  lead_name: z.string(),
  duration_ms: z.number().nullable(),
});

const TASK_CONTEXT_ROW = z.object({
  ...CAMPAIGN_FIELDS,
  id: z.string(),
  type: z.enum(TASK_TYPES),
  status: z.enum(TASK_STATUSES),
  attempts: z.number(),
  last_error: z.string().nullable(),
  lead_name: z.string(),
  linkedin_url: z.string(),
  email: z.string().nullable(),
  profile: z.object({ profile: z.record(z.string(), z.unknown()).optional() }).nullable(),
  quota_rows: z.array(QUOTA_ROW),
  recent: z.array(RECENT_ROW),
  blocked: z.array(z.string()),
  approval_mode: z.enum(APPROVAL_MODES),
  approval_first_n: z.number(),
  approved: z.number(),
  draft_id: z.string().nullable(),
  draft_attempt: z.number().nullable(),
  draft_action: z.enum(['linkedin_scrape_profile', 'linkedin_send_message', 'send_email']).nullable(),
  draft_args: z.record(z.string(), z.unknown()).nullable(),
  draft_reason: z.string().nullable(),
  draft_quota_day: z.string().nullable(),
  ...BRIEF_ROW_FIELDS,
});

/** count(*) is a bigint: text on the wire. */
const WRAP_UP_ROW = z.object({
  ...CAMPAIGN_FIELDS,
  open: z.coerce.number(),
  finished: z.coerce.number(),
  quota_rows: z.array(QUOTA_ROW),
  recent: z.array(RECENT_ROW),
});

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

@Injectable()
export class PostgresOutreachCycleStore extends OutreachCycleStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditAppender,
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

  async claimTask(input: ClaimInput): Promise<ClaimedWork | null> {
    // One statement, one round trip: the claim, then the claimed task's context read by indexes
    // that hold only what it reads: the task's own columns as the claim left them (its
    // RETURNING); its lead and campaign by their keys; the profile among the lead's 3 tasks; the
    // ledger's rows of the week; the last 3 finished tasks (outreach_tasks_recent); the lead's
    // addresses on the do-not-contact list; approvals of the task's kind, counted only as far as
    // first_n asks; and the task's approved draft (outreach_drafts_open_task). The cycle's
    // decision row is opened as pending in the same statement, for the task it claimed.
    const opened = input.decision
      ? sql`, opened AS (${decisionOpening(input.decision, sql`SELECT owner_id, campaign_id, id FROM claimed`)})`
      : empty;
    const row = await selectRow(
      this.dataSource,
      sql`WITH claimed AS (${claimStatement(input)})${opened}
       SELECT t.id, t.type, t.status, t.attempts, t.last_error, l.name AS lead_name, l.linkedin_url, l.email,
         (SELECT s.output FROM outreach_tasks s WHERE s.lead_id = t.lead_id AND s.type = 'ScrapeProfile' AND s.status = 'Completed' LIMIT 1) AS profile,
         (SELECT coalesce(json_agg(q), '[]') FROM (${quotaRows(sql`c.id`, sql`c.owner_id`, input.day)}) q) AS quota_rows,
         (SELECT coalesce(json_agg(r ORDER BY r.completed_at DESC, r.id), '[]') FROM (${recentTasks(sql`c.id`)}) r) AS recent,
         ARRAY(SELECT n.value FROM do_not_contact n WHERE n.owner_id = c.owner_id AND n.value IN (l.linkedin_url, l.email))::text[] AS blocked,
         c.approval_mode, c.approval_first_n,
         CASE WHEN c.approval_mode = 'first_n' THEN (SELECT count(*)::int FROM (
           SELECT 1 FROM outreach_drafts r WHERE r.campaign_id = c.id AND r.kind = ${kindOfTask(sql`t.type`)} AND r.status IN ('approved', 'sent')
           LIMIT c.approval_first_n) a) ELSE 0 END AS approved,
         ad.id AS draft_id, ad.attempt AS draft_attempt, ad.action AS draft_action, ad.args AS draft_args, ad.reason AS draft_reason,
         ad.quota_day::text AS draft_quota_day,
         ${CAMPAIGN_COLUMNS}, ${BRIEF_COLUMNS}
       FROM claimed t JOIN leads l ON l.id = t.lead_id JOIN campaigns c ON c.id = t.campaign_id
         LEFT JOIN outreach_drafts ad ON ad.task_id = t.id AND ad.status = 'approved'`,
      TASK_CONTEXT_ROW,
    );
    if (!row) return null;
    return {
      claim: { taskId: row.id, campaignId: row.campaign_id, ownerId: row.owner_id, workerId: input.workerId, attempts: row.attempts },
      loaded: {
        context: {
          kind: 'task',
          campaign: { id: row.campaign_id, name: row.campaign_name, status: row.campaign_status },
          task: { id: row.id, type: row.type, status: row.status, attempts: row.attempts, lastError: row.last_error },
          lead: { name: row.lead_name, linkedinUrl: row.linkedin_url, email: row.email, profile: row.profile?.profile ?? null },
          quota: quotaStateOf(row.quota_rows, campaignOf(row), input.ownerLimits, input.day),
          recent: row.recent.map(recentResult),
          doNotContact: row.blocked,
          secretNames: input.secretNames,
          ...briefOfRow(row),
        },
        review: {
          policy: { mode: row.approval_mode, firstN: row.approval_first_n },
          approved: row.approved,
          approvedDraft: row.draft_id === null ? null : approvedDraftOf(row),
        },
      },
    };
  }

  async loadWrapUpContext(
    campaignId: string,
    input: { day: string; ownerLimits: OwnerLimits; decision?: OpenedDecision },
  ): Promise<WrapUpContext | null> {
    const opened = input.decision
      ? sql`WITH opened AS (${decisionOpening(input.decision, sql`SELECT owner_id, id, NULL::uuid FROM campaigns WHERE id = ${campaignId}`)}) `
      : empty;
    const row = await selectRow(
      this.dataSource,
      sql`${opened}SELECT ${CAMPAIGN_COLUMNS},
         (SELECT count(*) FROM outreach_tasks t WHERE t.campaign_id = c.id AND t.status IN ${OPEN}) AS open,
         (SELECT count(*) FROM outreach_tasks t WHERE t.campaign_id = c.id AND t.status NOT IN ${OPEN}) AS finished,
         (SELECT coalesce(json_agg(q), '[]') FROM (${quotaRows(sql`c.id`, sql`c.owner_id`, input.day)}) q) AS quota_rows,
         (SELECT coalesce(json_agg(r ORDER BY r.completed_at DESC, r.id), '[]') FROM (${recentTasks(sql`c.id`)}) r) AS recent
       FROM campaigns c WHERE c.id = ${campaignId}`,
      WRAP_UP_ROW,
    );
    if (!row) return null;
    return {
      kind: 'wrap_up',
      campaign: { id: row.campaign_id, name: row.campaign_name, status: row.campaign_status },
      openTasks: row.open,
      finishedTasks: row.finished,
      quota: quotaStateOf(row.quota_rows, campaignOf(row), input.ownerLimits, input.day),
      recent: row.recent.map(recentResult),
    };
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
    const types = TASK_TYPES.filter((type) => TASK_ACTION[type].kind === input.kind);
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
      await changeRows(
        manager,
        sql`UPDATE campaigns SET status = 'completed', completed_at = ${now}, updated_at = ${now} WHERE id = ${campaignId}`,
      );
      return true;
    });
  }

  async recordDecision(decision: OutreachDecision): Promise<void> {
    await run(this.dataSource, decisionInsert(decision));
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
      proposal: { action: row.action, args: row.args, reason: 'recovered after its worker stopped' } as Proposal,
      channel: row.channel,
      idempotencyKey: row.idempotency_key,
    }));
  }

  async closeAbandonedDecisions(input: { openedBefore: Date; limit: number }): Promise<number> {
    // decision_logs_pending holds only the pending rows, by their start: the walk reads those,
    // not the table. Chat's pending rows (no campaign) are its sweeper's; SKIP LOCKED leaves a
    // row a cycle is settling right now to that cycle. A cycle that still settles its row
    // later overwrites this (decisionInsert): what it did is the better record.
    // The batch is picked once (MATERIALIZED): as `id IN (subquery)`, a nested-loop semi join
    // runs the subquery again for each row, skips the rows this statement already updated, and
    // takes the next ones, past the limit.
    return changeRows(
      this.dataSource,
      sql`WITH picked AS MATERIALIZED (
            SELECT d.id FROM decision_logs d
            WHERE d.status = 'pending' AND d.campaign_id IS NOT NULL AND d.created_at < ${input.openedBefore}
            ORDER BY d.created_at LIMIT ${input.limit} FOR UPDATE SKIP LOCKED)
          UPDATE decision_logs SET status = 'interrupted', failure_class = 'INTERRUPTED'
          WHERE id IN (SELECT id FROM picked) AND status = 'pending'`,
    );
  }
}

/**
 * The claim of claimTask: each active campaign's first claimable task, by outreach_tasks_claim
 * (its due, ready tasks in this very order), locked with SKIP LOCKED so that concurrent
 * workers each get another and none waits; then the most overdue of those heads. Each walk
 * stops at the first row it can lock, so the claim reads a few rows per active campaign
 * whatever their size, how many tasks wait for an earlier step, and what the statistics
 * say: the index is the one path that needs no sort. The earlier steps are checked again here.
 */
export function claimStatement(input: Pick<ClaimInput, 'workerId' | 'now' | 'leaseMs' | 'campaignId'>): Statement {
  const now = sql`${input.now}::timestamptz`;
  const campaignId = sql`${input.campaignId ?? null}::uuid`;
  return sql`UPDATE outreach_tasks t
    SET status = 'InProgress', attempts = t.attempts + 1, lease_owner = ${input.workerId},
        lease_expires_at = ${new Date(input.now.getTime() + input.leaseMs)}, updated_at = ${now}
    FROM campaigns c
    WHERE c.id = t.campaign_id AND t.id = (
      SELECT h.id FROM campaigns a CROSS JOIN LATERAL (
        SELECT d.id, d.next_run_at, d.step, d.created_at FROM outreach_tasks d
        WHERE d.campaign_id = a.id AND d.status IN ('Pending', 'InProgress') AND d.ready AND d.next_run_at <= ${now}
          AND (d.status = 'Pending' OR d.lease_expires_at < ${now})
          AND NOT EXISTS (SELECT 1 FROM outreach_tasks p WHERE p.lead_id = d.lead_id AND p.step < d.step AND p.status IN ${OPEN})
          AND NOT EXISTS (SELECT 1 FROM outreach_actions x WHERE x.task_id = d.id AND x.status = 'in_flight')
        ORDER BY d.next_run_at, d.step, d.created_at, d.id
        LIMIT 1
        FOR UPDATE OF d SKIP LOCKED) h
      WHERE a.status = 'active' AND (${campaignId} IS NULL OR a.id = ${campaignId})
      ORDER BY h.next_run_at, h.step, h.created_at, h.id
      LIMIT 1)
    RETURNING t.id, t.campaign_id, c.owner_id, t.attempts, t.lead_id, t.type, t.status, t.last_error`;
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
 * The decision row's INSERT: on its own, or a part of the statement that releases the cycle's
 * task (releaseStatement). It settles the row the cycle opened as pending (decisionOpening),
 * keeping its start and task, or writes it whole when none was opened.
 */
function decisionInsert(d: OutreachDecision): Statement {
  return sql`INSERT INTO decision_logs (id, user_id, campaign_id, outreach_task_id, decision_type, status, iterations, provider, model,
      prompt_tokens, completion_tokens, cost, duration_ms, failure_class, provider_request_id, created_at)
    VALUES (${d.id}, ${d.ownerId}, ${d.campaignId}, ${d.taskId}, ${d.decisionType}, ${d.status}, ${d.iterations}, ${d.provider},
      ${d.model}, ${d.promptTokens}, ${d.completionTokens}, ${d.cost}, ${d.durationMs}, ${d.failureClass}, ${d.providerRequestId},
      ${d.createdAt})
    ON CONFLICT (id) DO UPDATE SET decision_type = EXCLUDED.decision_type, status = EXCLUDED.status,
      iterations = EXCLUDED.iterations, provider = EXCLUDED.provider, model = EXCLUDED.model,
      prompt_tokens = EXCLUDED.prompt_tokens, completion_tokens = EXCLUDED.completion_tokens, cost = EXCLUDED.cost,
      duration_ms = EXCLUDED.duration_ms, failure_class = EXCLUDED.failure_class, provider_request_id = EXCLUDED.provider_request_id,
      outreach_task_id = COALESCE(EXCLUDED.outreach_task_id, decision_logs.outreach_task_id)
    WHERE decision_logs.user_id = EXCLUDED.user_id AND decision_logs.campaign_id = EXCLUDED.campaign_id`;
}

/**
 * The INSERT that opens a cycle's decision row as pending (PENDING, like a chat turn's), before
 * the model is asked, for the owner, campaign and task (or null) of the one row `of` selects,
 * in that order; none when it selects none.
 */
function decisionOpening(d: OpenedDecision, of: Statement): Statement {
  return sql`INSERT INTO decision_logs (id, user_id, campaign_id, outreach_task_id, decision_type, status, iterations, provider, model,
      prompt_tokens, completion_tokens, duration_ms, created_at)
    SELECT ${d.id}::uuid, o.owner_id, o.campaign_id, o.task_id, ${PENDING_DECISION}::varchar, 'pending', 0, ${d.provider}::varchar,
      ${d.model}::varchar, 0, 0, 0, ${d.createdAt}::timestamptz
    FROM (${of}) AS o (owner_id, campaign_id, task_id)`;
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
    ${input.decision ? sql`decided AS (${decisionInsert(input.decision)}),` : empty}
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

function campaignOf(row: CampaignRow): QuotaCampaign {
  return {
    id: row.campaign_id,
    ownerId: row.owner_id,
    dailyLimits: { profile_lookup: row.limit_profile_lookup, linkedin_message: row.limit_linkedin_message, email: row.limit_email },
    weeklyLimits: {
      profile_lookup: row.weekly_limit_profile_lookup,
      linkedin_message: row.weekly_limit_linkedin_message,
      email: row.weekly_limit_email,
    },
  };
}

/** The campaign's last 3 finished tasks (outreach_tasks_recent), newest first, with the duration of their last action (RECENT_ROW). */
function recentTasks(campaignId: Statement): Statement {
  return sql`SELECT t.id, t.completed_at, t.type, t.status, l.name AS lead_name,
      (SELECT round(extract(epoch FROM a.finished_at - a.created_at) * 1000) FROM outreach_actions a
       WHERE a.task_id = t.id AND a.finished_at IS NOT NULL ORDER BY a.created_at DESC LIMIT 1) AS duration_ms
    FROM outreach_tasks t JOIN leads l ON l.id = t.lead_id
    WHERE t.campaign_id = ${campaignId} AND t.status IN ('Completed', 'Failed') AND t.completed_at IS NOT NULL
    ORDER BY t.completed_at DESC, t.id LIMIT 3`;
}

function recentResult(row: z.output<typeof RECENT_ROW>): RecentResult {
  return { type: row.type, status: row.status, leadName: row.lead_name, durationMs: row.duration_ms ?? 0 };
}

/** The action kind of a task of type `type` (a column), as TASK_ACTION says. */
function kindOfTask(type: Statement): Statement {
  return sql`CASE ${type} ${join(
    TASK_TYPES.map((each) => sql`WHEN ${each} THEN ${TASK_ACTION[each].kind}`),
    ' ',
  )} END`;
}

/** The task's approved draft, from the context row's draft_* columns (set when draft_id is). */
function approvedDraftOf(row: z.output<typeof TASK_CONTEXT_ROW>): ApprovedDraft {
  return {
    id: row.draft_id!,
    attempt: row.draft_attempt!,
    proposal: { action: row.draft_action!, args: row.draft_args!, reason: row.draft_reason! } as DraftProposal,
    quotaDay: row.draft_quota_day!,
  };
}
