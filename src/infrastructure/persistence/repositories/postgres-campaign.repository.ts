import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  type CampaignChanges,
  type CampaignCounts,
  type CampaignDeletion,
  CampaignRepository,
  type TaskView,
} from '../../../application/outreach/ports/campaign-repository.port';
import type { Page } from '../../../application/shared/page';
import {
  CAMPAIGN_STATUSES,
  type Campaign,
  type CampaignDraft,
  CampaignNotFoundError,
  CampaignStateError,
  type CampaignStatus,
} from '../../../domain/outreach/campaign';
import { MESSAGE_CHANNELS } from '../../../domain/outreach/actions';
import { DO_NOT_CONTACT_ROW } from '../tables/do-not-contact';
import type { DoNotContactEntry, DoNotContactKind } from '../../../domain/outreach/do-not-contact';
import { LEAD_STATUSES, type Lead, type LeadDraft } from '../../../domain/outreach/lead';
import { MAX_STEPS } from '../../../domain/outreach/action-catalog';
import { type OutreachTaskStatus, TASK_STATUSES, TASK_STEPS } from '../../../domain/outreach/outreach-task';
import type { OwnerLimits, QuotaState } from '../../../domain/outreach/quota';
import { APPROVAL_MODES } from '../../../domain/outreach/review';
import { emailKey } from '../../../domain/shared/email-address';
import { isUuid } from '../../../domain/shared/uuid';
import { decodeCursor, encodeCursor, isTimeAndIdCursor, isTimestamp } from '../cursor';
import { changeRows, empty, join, raw, selectRow, selectRows, sql } from '../sql';
import { BRIEF_ROW_FIELDS, briefColumns, briefInsert, briefOfRow, briefSet } from '../tables/campaign-brief-columns';
import { readQuota } from '../tables/quota-ledger';
import { z } from 'zod';
import { LIMITS_FIELD, limitsColumn, limitsOf, writeLimits } from '../tables/campaign-limits';

const CAMPAIGN_ROW = z
  .object({
    id: z.string(),
    owner_id: z.string(),
    name: z.string(),
    status: z.enum(CAMPAIGN_STATUSES),
    limits: LIMITS_FIELD,
    approval_mode: z.enum(APPROVAL_MODES),
    approval_first_n: z.number(),
    ...BRIEF_ROW_FIELDS,
    created_at: z.date(),
    updated_at: z.date(),
    completed_at: z.date().nullable(),
    /** created_at as PostgreSQL prints it: microseconds survive the round trip through a cursor. */
    created_key: z.string(),
  })
  .transform((row) => ({
    key: row.created_key,
    campaign: {
      id: row.id,
      ownerId: row.owner_id,
      name: row.name,
      status: row.status,
      ...limitsOf(row.limits),
      approval: { mode: row.approval_mode, firstN: row.approval_first_n },
      ...briefOfRow(row),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      completedAt: row.completed_at,
    } satisfies Campaign,
  }));

const LEAD_ROW = z
  .object({
    id: z.string(),
    campaign_id: z.string(),
    name: z.string(),
    linkedin_url: z.string(),
    email: z.string().nullable(),
    status: z.enum(LEAD_STATUSES),
    created_at: z.date(),
  })
  .transform((row): Lead => ({
    id: row.id,
    campaignId: row.campaign_id,
    name: row.name,
    linkedinUrl: row.linkedin_url,
    email: row.email,
    status: row.status,
    createdAt: row.created_at,
  }));

const TASK_ROW = z.object({
  id: z.string(),
  campaign_id: z.string(),
  lead_id: z.string(),
  type: z.string(),
  step: z.number().int(),
  status: z.enum(TASK_STATUSES),
  attempts: z.number(),
  next_run_at: z.date(),
  output: z.record(z.string(), z.unknown()).nullable(),
  /** What a message or email task handed to its channel, kept in its output at verification (withSentMessage). */
  sent: z.object({ channel: z.enum(MESSAGE_CHANNELS), recipient: z.string(), subject: z.string().nullable(), text: z.string() }).nullable(),
  last_error: z.string().nullable(),
  created_at: z.date(),
  completed_at: z.date().nullable(),
  lead_name: z.string(),
  lead_linkedin_url: z.string(),
  lead_created_key: z.string(),
});

const COUNTS_ROW = z.object({ leads: z.number(), tasks: z.partialRecord(z.enum(TASK_STATUSES), z.number()) });

const CAMPAIGN_FIELDS = raw(`id, owner_id, name, status,
  approval_mode, approval_first_n, ${briefColumns()}, created_at, updated_at, completed_at, created_at::text AS created_key`);
/** A campaign's columns and its limits (campaign_limits), read by the statement that reads it. */
const CAMPAIGN_COLUMNS = sql`${CAMPAIGN_FIELDS}, ${limitsColumn(sql`campaigns.id`)} AS limits`;
const LEAD_COLUMNS = raw('id, campaign_id, name, linkedin_url, email, status, created_at');
const DO_NOT_CONTACT_COLUMNS = raw('id, kind, value, created_at');
const STATUS_ROW = z.object({ status: z.enum(CAMPAIGN_STATUSES) });

/**
 * Campaigns, leads, their tasks and the do-not-contact list in PostgreSQL, in raw SQL.
 * Methods that take an owner id are scoped to it; counts, addLeads and listTasks take a
 * campaign id the caller has already resolved through get(ownerId, …).
 */
@Injectable()
export class PostgresCampaignRepository extends CampaignRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async create(ownerId: string, draft: CampaignDraft, now: Date): Promise<Campaign> {
    const { mode, firstN } = draft.approval;
    const brief = briefInsert(draft);
    const limits = writeLimits('created', draft);
    // The campaign and its limits' rows in one statement; the rows' foreign key is checked at its end.
    const row = await selectRow(
      this.dataSource,
      sql`WITH created AS (
            INSERT INTO campaigns (owner_id, name, status, approval_mode, approval_first_n, ${brief.columns}, created_at, updated_at)
            VALUES (${ownerId}, ${draft.name}, 'draft', ${mode}, ${firstN}, ${brief.values}, ${now}, ${now})
            RETURNING ${CAMPAIGN_FIELDS}),
          ${limits.ctes}
          SELECT created.*, ${limits.column} AS limits FROM created`,
      CAMPAIGN_ROW,
    );
    return row!.campaign;
  }

  async get(ownerId: string, campaignId: string): Promise<Campaign | null> {
    if (!isUuid(campaignId)) return null;
    const row = await selectRow(
      this.dataSource,
      sql`SELECT ${CAMPAIGN_COLUMNS} FROM campaigns WHERE id = ${campaignId} AND owner_id = ${ownerId}`,
      CAMPAIGN_ROW,
    );
    return row && row.campaign;
  }

  async list(ownerId: string, limit: number, cursor: string | null): Promise<Page<Campaign>> {
    const after = decodeCursor(cursor, isTimeAndIdCursor);
    const rows = await selectRows(
      this.dataSource,
      sql`SELECT ${CAMPAIGN_COLUMNS} FROM campaigns
          WHERE owner_id = ${ownerId} ${after ? sql`AND (created_at, id) < (${after[0]}::timestamptz, ${after[1]}::uuid)` : empty}
          ORDER BY created_at DESC, id DESC LIMIT ${limit + 1}`,
      CAMPAIGN_ROW,
    );
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    return {
      items: items.map((row) => row.campaign),
      nextCursor: rows.length > limit ? encodeCursor([last.key, last.campaign.id]) : null,
    };
  }

  async update(
    ownerId: string,
    campaignId: string,
    changes: CampaignChanges,
    now: Date,
    expectedStatus: CampaignStatus,
  ): Promise<Campaign | null> {
    if (!isUuid(campaignId)) return null;
    const set = [sql`updated_at = ${now}`];
    if (changes.name !== undefined) set.push(sql`name = ${changes.name}`);
    if (changes.approval !== undefined) {
      set.push(sql`approval_mode = ${changes.approval.mode}`, sql`approval_first_n = ${changes.approval.firstN}`);
    }
    set.push(...briefSet(changes));
    if (changes.status !== undefined) set.push(sql`status = ${changes.status}`);
    if (changes.status === 'completed') set.push(sql`completed_at = coalesce(completed_at, ${now}::timestamptz)`);
    // The status condition is re-checked on the newest row version when a concurrent
    // update (a worker completing the campaign) commits first.
    const { dailyLimits, weeklyLimits } = changes;
    const update = sql`UPDATE campaigns SET ${join(set, ', ')}
          WHERE id = ${campaignId} AND owner_id = ${ownerId} AND status = ${expectedStatus}`;
    const limits = dailyLimits === undefined && weeklyLimits === undefined ? null : writeLimits('changed', { dailyLimits, weeklyLimits });
    // New limits are written by the same statement, only if the campaign was.
    const row = await selectRow(
      this.dataSource,
      limits
        ? sql`WITH changed AS (${update} RETURNING ${CAMPAIGN_FIELDS}), ${limits.ctes}
              SELECT changed.*, ${limits.column} AS limits FROM changed`
        : sql`${update} RETURNING ${CAMPAIGN_COLUMNS}`,
      CAMPAIGN_ROW,
    );
    return row && row.campaign;
  }

  async delete(ownerId: string, campaignId: string, expectedStatus: CampaignStatus): Promise<CampaignDeletion> {
    if (!isUuid(campaignId)) return 'not_found';
    const deleted = await changeRows(
      this.dataSource,
      sql`DELETE FROM campaigns c
          WHERE c.id = ${campaignId} AND c.owner_id = ${ownerId} AND c.status = ${expectedStatus}
            AND NOT EXISTS (SELECT 1 FROM outreach_actions a WHERE a.campaign_id = c.id AND a.status = 'in_flight')`,
    );
    if (deleted > 0) return 'deleted';
    const row = await selectRow(
      this.dataSource,
      sql`SELECT status FROM campaigns WHERE id = ${campaignId} AND owner_id = ${ownerId}`,
      STATUS_ROW,
    );
    if (!row) return 'not_found';
    return row.status === expectedStatus ? 'action_in_flight' : 'status_changed';
  }

  async counts(campaignId: string): Promise<CampaignCounts> {
    const row = await selectRow(
      this.dataSource,
      sql`SELECT (SELECT count(*)::int FROM leads WHERE campaign_id = ${campaignId}) AS leads,
            (SELECT coalesce(json_object_agg(status, n), '{}'::json) FROM (
               SELECT status, count(*)::int AS n FROM outreach_tasks WHERE campaign_id = ${campaignId} GROUP BY status) s) AS tasks`,
      COUNTS_ROW,
    );
    const tasks = Object.fromEntries(TASK_STATUSES.map((status) => [status, row!.tasks[status] ?? 0]));
    return { leads: row!.leads, tasks: tasks as Record<OutreachTaskStatus, number> };
  }

  async addLeads(
    campaignId: string,
    leads: readonly LeadDraft[],
    now: Date,
    steps: readonly string[] = TASK_STEPS,
  ): Promise<{ readonly added: readonly Lead[]; readonly existing: readonly string[] }> {
    if (!isUuid(campaignId)) throw new CampaignNotFoundError();
    return this.dataSource.transaction(async (manager) => {
      // Held until commit: a worker completing the campaign (an UPDATE of this row) waits,
      // and imports into one campaign queue up instead of racing on the same URLs.
      const campaign = await selectRow(manager, sql`SELECT status FROM campaigns WHERE id = ${campaignId} FOR NO KEY UPDATE`, STATUS_ROW);
      if (!campaign) throw new CampaignNotFoundError();
      if (campaign.status === 'completed') {
        throw new CampaignStateError('The campaign is completed; leads cannot be added to it');
      }
      if (leads.length === 0) return { added: [], existing: [] };

      // One statement for every lead and task. A task row sees its lead through the CTE's
      // RETURNING; the foreign key is checked at the end of the statement. A lead's first step
      // is ready; each later one becomes ready when the step before it closes (migration 1766275200000).
      const [names, urls, emails, keys] = [
        leads.map((lead) => lead.name),
        leads.map((lead) => lead.linkedinUrl),
        leads.map((lead) => lead.email),
        // What the do-not-contact list is compared with (its entries are keys too: doNotContactValue).
        leads.map((lead) => emailKey(lead.email)),
      ];
      const added = await selectRows(
        manager,
        sql`WITH input AS (
              SELECT * FROM unnest(${names}::text[], ${urls}::text[], ${emails}::text[], ${keys}::text[])
                WITH ORDINALITY AS i (name, linkedin_url, email, email_key, ord)
            ),
            added AS (
              INSERT INTO leads (campaign_id, name, linkedin_url, email, email_key, status, created_at)
              SELECT ${campaignId}::uuid, name, linkedin_url, email, email_key, 'new', ${now}::timestamptz FROM input ORDER BY ord
              ON CONFLICT (campaign_id, linkedin_url) DO NOTHING
              RETURNING ${LEAD_COLUMNS}
            ),
            tasks AS (
              INSERT INTO outreach_tasks (campaign_id, lead_id, type, step, status, ready, attempts, next_run_at, created_at, updated_at)
              SELECT ${campaignId}::uuid, added.id, step.type, step.n, 'Pending', step.n = 1, 0, ${now}::timestamptz, ${now}::timestamptz,
                ${now}::timestamptz
              FROM added CROSS JOIN unnest(${steps}::text[]) WITH ORDINALITY AS step (type, n)
              WHERE step.type <> 'SendEmail' OR added.email IS NOT NULL
            )
            SELECT * FROM added`,
        LEAD_ROW,
      );
      const addedUrls = new Set(added.map((lead) => lead.linkedinUrl));
      const existing = [...new Set(leads.map((lead) => lead.linkedinUrl))].filter((url) => !addedUrls.has(url));
      return { added, existing };
    });
  }

  async listTasks(campaignId: string, limit: number, cursor: string | null): Promise<Page<TaskView>> {
    const after = decodeCursor(cursor, isTaskCursor);
    const rows = await selectRows(
      this.dataSource,
      sql`SELECT t.id, t.campaign_id, t.lead_id, t.type, t.step, t.status, t.attempts, t.next_run_at,
            t.output - 'sent' AS output, t.output -> 'sent' AS sent, t.last_error, t.created_at, t.completed_at,
            l.name AS lead_name, l.linkedin_url AS lead_linkedin_url, l.created_at::text AS lead_created_key
          FROM outreach_tasks t JOIN leads l ON l.id = t.lead_id
          WHERE t.campaign_id = ${campaignId}
            ${after ? sql`AND (l.created_at, l.id, t.step) > (${after[0]}::timestamptz, ${after[1]}::uuid, ${after[2]}::smallint)` : empty}
          ORDER BY l.created_at, l.id, t.step LIMIT ${limit + 1}`,
      TASK_ROW,
    );
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    return {
      items: items.map(toTaskView),
      nextCursor: rows.length > limit ? encodeCursor([last.lead_created_key, last.lead_id, last.step]) : null,
    };
  }

  quota(campaign: Campaign, ownerLimits: OwnerLimits, day: string): Promise<QuotaState> {
    return readQuota(this.dataSource, campaign, ownerLimits, day);
  }

  async listDoNotContact(ownerId: string): Promise<readonly DoNotContactEntry[]> {
    return selectRows(
      this.dataSource,
      sql`SELECT ${DO_NOT_CONTACT_COLUMNS} FROM do_not_contact WHERE owner_id = ${ownerId} ORDER BY created_at DESC, id DESC`,
      DO_NOT_CONTACT_ROW,
    );
  }

  async addDoNotContact(ownerId: string, entry: { kind: DoNotContactKind; value: string }, now: Date): Promise<DoNotContactEntry> {
    // A no-op update instead of DO NOTHING so that RETURNING gives the listed entry too,
    // in one statement even when two requests add the same value at once.
    const added = await selectRow(
      this.dataSource,
      sql`INSERT INTO do_not_contact AS d (owner_id, kind, value, created_at) VALUES (${ownerId}, ${entry.kind}, ${entry.value}, ${now})
          ON CONFLICT (owner_id, value) DO UPDATE SET value = d.value
          RETURNING ${DO_NOT_CONTACT_COLUMNS}`,
      DO_NOT_CONTACT_ROW,
    );
    return added!;
  }

  async removeDoNotContact(ownerId: string, entryId: string): Promise<boolean> {
    if (!isUuid(entryId)) return false;
    return (await changeRows(this.dataSource, sql`DELETE FROM do_not_contact WHERE id = ${entryId} AND owner_id = ${ownerId}`)) > 0;
  }
}

function toTaskView(row: z.output<typeof TASK_ROW>): TaskView {
  return {
    id: row.id,
    campaignId: row.campaign_id,
    leadId: row.lead_id,
    type: row.type,
    step: row.step,
    status: row.status,
    attempts: row.attempts,
    nextRunAt: row.next_run_at,
    output: row.output,
    sent: row.sent,
    lastError: row.last_error,
    createdAt: row.created_at,
    completedAt: row.completed_at,
    leadName: row.lead_name,
    leadLinkedinUrl: row.lead_linkedin_url,
  };
}

function isTaskCursor(value: unknown): value is [string, string, number] {
  return (
    Array.isArray(value) &&
    value.length === 3 &&
    isTimestamp(value[0]) &&
    isUuid(value[1]) &&
    Number.isInteger(value[2]) &&
    (value[2] as number) >= 1 &&
    (value[2] as number) <= MAX_STEPS
  );
}
