import {
  type ClaimedWork,
  type ClaimInput,
  type ApprovedDraft,
  type OpenedDecision,
  type WrapUpContext,
} from '../../../../application/outreach/ports/outreach-cycle-store.port';
import { CAMPAIGN_STATUSES } from '../../../../domain/outreach/campaign';
import type { RecentResult } from '../../../../domain/outreach/planning';
import { type ActionCatalog, BUILT_IN_ACTIONS } from '../../../../domain/outreach/action-catalog';
import { TASK_STATUSES } from '../../../../domain/outreach/outreach-task';
import type { OwnerLimits } from '../../../../domain/outreach/quota';
import { APPROVAL_MODES } from '../../../../domain/outreach/review';
import { z } from 'zod';
import type { ErasedAddressKey } from '../../../security/erased-address-key';
import { LIMITS_FIELD, limitsColumn, limitsOf } from '../../tables/campaign-limits';
import { listedValues } from '../../tables/do-not-contact';
import { empty, join, raw, selectRow, type Sql, sql, type Statement } from '../../sql';
import { BRIEF_ROW_FIELDS, briefColumns, briefOfRow } from '../../tables/campaign-brief-columns';
import { cycleDecisionOpening } from '../../tables/decision-logs';
import { OPEN } from '../../tables/outreach-tasks';
import { QUOTA_ROW, type QuotaCampaign, quotaRows, quotaStateOf } from '../../tables/quota-ledger';

/*
 * What an outreach cycle reads before the model is asked (PostgresOutreachCycleStore's claimTask
 * and loadWrapUpContext): the claim and the claimed task's context, or a campaign's wrap-up
 * context, each in one statement that also opens the cycle's decision row.
 */

const CAMPAIGN_FIELDS = {
  campaign_id: z.string(),
  campaign_name: z.string(),
  campaign_status: z.enum(CAMPAIGN_STATUSES),
  owner_id: z.string(),
  limits: LIMITS_FIELD,
};
type CampaignRow = z.output<z.ZodObject<typeof CAMPAIGN_FIELDS>>;

/** The campaign and its limits (campaign_limits), read by the cycle's one statement. */
const CAMPAIGN_COLUMNS = sql`c.id AS campaign_id, c.name AS campaign_name, c.status AS campaign_status, c.owner_id,
  ${limitsColumn(sql`c.id`)} AS limits`;

/** The campaign's brief and templates, for the planner's prompt. */
const BRIEF_COLUMNS = raw(briefColumns('c'));

/** What the planner is shown of the campaign's past: its last 3 finished tasks, with the duration of their action. */
const RECENT_ROW = z.object({
  type: z.string(),
  status: z.enum(TASK_STATUSES),
  lead_name: z.string(),
  duration_ms: z.number().nullable(),
});

const TASK_CONTEXT_ROW = z.object({
  ...CAMPAIGN_FIELDS,
  id: z.string(),
  type: z.string(),
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

/**
 * The claim of claimTask and the claimed task's context, in one statement: see claimTask.
 * @returns null when no task was claimable.
 */
export async function claimWithContext(
  db: Sql,
  input: ClaimInput,
  erasedKey: ErasedAddressKey,
  actions: ActionCatalog = BUILT_IN_ACTIONS,
): Promise<ClaimedWork | null> {
  // One statement, one round trip: the claim, then the claimed task's context read by indexes
  // that hold only what it reads: the task's own columns as the claim left them (its
  // RETURNING); its lead and campaign by their keys; the profile among the lead's 3 tasks; the
  // ledger's rows of the week; the last 3 finished tasks (outreach_tasks_recent); the lead's
  // addresses on the do-not-contact list; approvals of the task's kind, counted only as far as
  // first_n asks; and the task's approved draft (outreach_drafts_open_task). The cycle's
  // decision row is opened as pending in the same statement, for the task it claimed.
  const opened = input.decision
    ? sql`, opened AS (${cycleDecisionOpening(input.decision, sql`SELECT owner_id, campaign_id, id FROM claimed`)})`
    : empty;
  const row = await selectRow(
    db,
    sql`WITH claimed AS (${claimStatement(input)})${opened}
       SELECT t.id, t.type, t.status, t.attempts, t.last_error, l.name AS lead_name, l.linkedin_url, l.email,
         (SELECT s.output FROM outreach_tasks s WHERE s.lead_id = t.lead_id AND s.type = 'ScrapeProfile' AND s.status = 'Completed' LIMIT 1) AS profile,
         (SELECT coalesce(json_agg(q), '[]') FROM (${quotaRows(sql`c.id`, sql`c.owner_id`, input.day)}) q) AS quota_rows,
         (SELECT coalesce(json_agg(r ORDER BY r.completed_at DESC, r.id), '[]') FROM (${recentTasks(sql`c.id`)}) r) AS recent,
         ${listedValues(erasedKey, sql`c.owner_id`, sql`l.linkedin_url`, sql`l.email_key`)} AS blocked,
         c.approval_mode, c.approval_first_n,
         CASE WHEN c.approval_mode = 'first_n' THEN (SELECT count(*)::int FROM (
           SELECT 1 FROM outreach_drafts r WHERE r.campaign_id = c.id AND r.kind = ${kindOfTask(sql`t.type`, actions)} AND r.status IN ('approved', 'sent')
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

/** What loadWrapUpContext reads, in one statement: see loadWrapUpContext. */
export async function readWrapUpContext(
  db: Sql,
  campaignId: string,
  input: { day: string; ownerLimits: OwnerLimits; decision?: OpenedDecision },
): Promise<WrapUpContext | null> {
  const opened = input.decision
    ? sql`WITH opened AS (${cycleDecisionOpening(input.decision, sql`SELECT owner_id, id, NULL::uuid FROM campaigns WHERE id = ${campaignId}`)}) `
    : empty;
  const row = await selectRow(
    db,
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

function campaignOf(row: CampaignRow): QuotaCampaign {
  return { id: row.campaign_id, ownerId: row.owner_id, ...limitsOf(row.limits) };
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

/** The action kind of a task of type `type` (a column), as the catalog says (TASK_ACTION and the channels' own). */
function kindOfTask(type: Statement, actions: ActionCatalog): Statement {
  return sql`CASE ${type} ${join(
    actions.taskTypes().map((each) => sql`WHEN ${each} THEN ${actions.taskAction(each).kind}`),
    ' ',
  )} END`;
}

/** The task's approved draft, from the context row's draft_* columns (set when draft_id is). */
function approvedDraftOf(row: z.output<typeof TASK_CONTEXT_ROW>): ApprovedDraft {
  return {
    id: row.draft_id!,
    attempt: row.draft_attempt!,
    proposal: { action: row.draft_action!, args: row.draft_args!, reason: row.draft_reason! },
    quotaDay: row.draft_quota_day!,
  };
}
