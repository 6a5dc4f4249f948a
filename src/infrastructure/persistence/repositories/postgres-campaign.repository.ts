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
  type Campaign,
  type CampaignDraft,
  CampaignNotFoundError,
  CampaignStateError,
  type CampaignStatus,
} from '../../../domain/outreach/campaign';
import type { DoNotContactEntry, DoNotContactKind } from '../../../domain/outreach/do-not-contact';
import type { Lead, LeadDraft, LeadStatus } from '../../../domain/outreach/lead';
import {
  type ActionKind,
  type OutreachTaskStatus,
  type OutreachTaskType,
  TASK_STATUSES,
  TASK_STEPS,
} from '../../../domain/outreach/outreach-task';
import type { QuotaState } from '../../../domain/outreach/quota';
import { isUuid } from '../../../domain/shared/uuid';
import { decodeCursor, encodeCursor, isTimeAndIdCursor, isTimestamp } from '../cursor';
import { readQuota } from './quota-ledger';

interface CampaignRow {
  id: string;
  owner_id: string;
  name: string;
  status: CampaignStatus;
  limit_profile_lookup: number;
  limit_linkedin_message: number;
  limit_email: number;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  /** created_at as PostgreSQL prints it: microseconds survive the round trip through a cursor. */
  created_key: string;
}

interface LeadRow {
  id: string;
  campaign_id: string;
  name: string;
  linkedin_url: string;
  email: string | null;
  status: LeadStatus;
  created_at: Date;
}

interface TaskRow {
  id: string;
  campaign_id: string;
  lead_id: string;
  type: OutreachTaskType;
  step: number;
  status: OutreachTaskStatus;
  attempts: number;
  next_run_at: Date;
  output: Record<string, unknown> | null;
  last_error: string | null;
  created_at: Date;
  completed_at: Date | null;
  lead_name: string;
  lead_linkedin_url: string;
  lead_created_key: string;
}

interface DoNotContactRow {
  id: string;
  kind: DoNotContactKind;
  value: string;
  created_at: Date;
}

const CAMPAIGN_COLUMNS = `id, owner_id, name, status, limit_profile_lookup, limit_linkedin_message, limit_email,
  created_at, updated_at, completed_at, created_at::text AS created_key`;
const LEAD_COLUMNS = 'id, campaign_id, name, linkedin_url, email, status, created_at';
const DO_NOT_CONTACT_COLUMNS = 'id, kind, value, created_at';

/** The column holding each kind's daily limit. */
const LIMIT_COLUMN: Readonly<Record<ActionKind, string>> = {
  profile_lookup: 'limit_profile_lookup',
  linkedin_message: 'limit_linkedin_message',
  email: 'limit_email',
};

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
    const { profile_lookup, linkedin_message, email } = draft.dailyLimits;
    const rows = await this.dataSource.query<CampaignRow[]>(
      `INSERT INTO campaigns (owner_id, name, status, limit_profile_lookup, limit_linkedin_message, limit_email, created_at, updated_at)
       VALUES ($1, $2, 'draft', $3, $4, $5, $6, $6)
       RETURNING ${CAMPAIGN_COLUMNS}`,
      [ownerId, draft.name, profile_lookup, linkedin_message, email, now],
    );
    return toCampaign(rows[0]);
  }

  async get(ownerId: string, campaignId: string): Promise<Campaign | null> {
    if (!isUuid(campaignId)) return null;
    const rows = await this.dataSource.query<CampaignRow[]>(`SELECT ${CAMPAIGN_COLUMNS} FROM campaigns WHERE id = $1 AND owner_id = $2`, [
      campaignId,
      ownerId,
    ]);
    return rows.length === 0 ? null : toCampaign(rows[0]);
  }

  async list(ownerId: string, limit: number, cursor: string | null): Promise<Page<Campaign>> {
    const after = decodeCursor(cursor, isTimeAndIdCursor);
    const rows = await this.dataSource.query<CampaignRow[]>(
      `SELECT ${CAMPAIGN_COLUMNS} FROM campaigns
       WHERE owner_id = $1 ${after ? 'AND (created_at, id) < ($3::timestamptz, $4::uuid)' : ''}
       ORDER BY created_at DESC, id DESC LIMIT $2`,
      after ? [ownerId, limit + 1, after[0], after[1]] : [ownerId, limit + 1],
    );
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    return {
      items: items.map(toCampaign),
      nextCursor: rows.length > limit ? encodeCursor([last.created_key, last.id]) : null,
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
    const params: unknown[] = [campaignId, ownerId, expectedStatus, now];
    const set = ['updated_at = $4'];
    const assign = (column: string, value: unknown) => {
      params.push(value);
      set.push(`${column} = $${params.length}`);
    };
    if (changes.name !== undefined) assign('name', changes.name);
    if (changes.dailyLimits !== undefined) {
      for (const [kind, column] of Object.entries(LIMIT_COLUMN)) assign(column, changes.dailyLimits[kind as ActionKind]);
    }
    if (changes.status !== undefined) assign('status', changes.status);
    if (changes.status === 'completed') set.push('completed_at = coalesce(completed_at, $4)');
    // The status condition is re-checked on the newest row version when a concurrent
    // update (a worker completing the campaign) commits first.
    const [rows] = await this.dataSource.query<[CampaignRow[], number]>(
      `UPDATE campaigns SET ${set.join(', ')}
       WHERE id = $1 AND owner_id = $2 AND status = $3
       RETURNING ${CAMPAIGN_COLUMNS}`,
      params,
    );
    return rows.length === 0 ? null : toCampaign(rows[0]);
  }

  async delete(ownerId: string, campaignId: string, expectedStatus: CampaignStatus): Promise<CampaignDeletion> {
    if (!isUuid(campaignId)) return 'not_found';
    const [deleted] = await this.dataSource.query<[unknown[], number]>(
      `DELETE FROM campaigns c
       WHERE c.id = $1 AND c.owner_id = $2 AND c.status = $3
         AND NOT EXISTS (SELECT 1 FROM outreach_actions a WHERE a.campaign_id = c.id AND a.status = 'in_flight')
       RETURNING c.id`,
      [campaignId, ownerId, expectedStatus],
    );
    if (deleted.length > 0) return 'deleted';
    const rows = await this.dataSource.query<{ status: CampaignStatus }[]>(`SELECT status FROM campaigns WHERE id = $1 AND owner_id = $2`, [
      campaignId,
      ownerId,
    ]);
    if (rows.length === 0) return 'not_found';
    return rows[0].status === expectedStatus ? 'action_in_flight' : 'status_changed';
  }

  async counts(campaignId: string): Promise<CampaignCounts> {
    const rows = await this.dataSource.query<{ leads: number; tasks: Partial<Record<OutreachTaskStatus, number>> }[]>(
      `SELECT (SELECT count(*)::int FROM leads WHERE campaign_id = $1) AS leads,
         (SELECT coalesce(json_object_agg(status, n), '{}'::json) FROM (
            SELECT status, count(*)::int AS n FROM outreach_tasks WHERE campaign_id = $1 GROUP BY status) s) AS tasks`,
      [campaignId],
    );
    const [row] = rows;
    const tasks = Object.fromEntries(TASK_STATUSES.map((status) => [status, row.tasks[status] ?? 0]));
    return { leads: row.leads, tasks: tasks as Record<OutreachTaskStatus, number> };
  }

  async addLeads(
    campaignId: string,
    leads: readonly LeadDraft[],
    now: Date,
  ): Promise<{ readonly added: readonly Lead[]; readonly existing: readonly string[] }> {
    if (!isUuid(campaignId)) throw new CampaignNotFoundError();
    return this.dataSource.transaction(async (manager) => {
      // Held until commit: a worker completing the campaign (an UPDATE of this row) waits,
      // and imports into one campaign queue up instead of racing on the same URLs.
      const campaigns = await manager.query<{ status: CampaignStatus }[]>(`SELECT status FROM campaigns WHERE id = $1 FOR NO KEY UPDATE`, [
        campaignId,
      ]);
      if (campaigns.length === 0) throw new CampaignNotFoundError();
      if (campaigns[0].status === 'completed') {
        throw new CampaignStateError('The campaign is completed; leads cannot be added to it');
      }
      if (leads.length === 0) return { added: [], existing: [] };

      // One statement for every lead and task. A task row sees its lead through the CTE's
      // RETURNING; the foreign key is checked at the end of the statement.
      const rows = await manager.query<LeadRow[]>(
        `WITH input AS (
           SELECT * FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS i (name, linkedin_url, email, ord)
         ),
         added AS (
           INSERT INTO leads (campaign_id, name, linkedin_url, email, status, created_at)
           SELECT $1, name, linkedin_url, email, 'new', $5 FROM input ORDER BY ord
           ON CONFLICT (campaign_id, linkedin_url) DO NOTHING
           RETURNING ${LEAD_COLUMNS}
         ),
         tasks AS (
           INSERT INTO outreach_tasks (campaign_id, lead_id, type, step, status, attempts, next_run_at, created_at, updated_at)
           SELECT $1, added.id, step.type, step.n, 'Pending', 0, $5, $5, $5
           FROM added CROSS JOIN unnest($6::text[]) WITH ORDINALITY AS step (type, n)
           WHERE step.type <> 'SendEmail' OR added.email IS NOT NULL
         )
         SELECT * FROM added`,
        [
          campaignId,
          leads.map((lead) => lead.name),
          leads.map((lead) => lead.linkedinUrl),
          leads.map((lead) => lead.email),
          now,
          TASK_STEPS,
        ],
      );
      const added = rows.map(toLead);
      const addedUrls = new Set(added.map((lead) => lead.linkedinUrl));
      const existing = [...new Set(leads.map((lead) => lead.linkedinUrl))].filter((url) => !addedUrls.has(url));
      return { added, existing };
    });
  }

  async listTasks(campaignId: string, limit: number, cursor: string | null): Promise<Page<TaskView>> {
    const after = decodeCursor(cursor, isTaskCursor);
    const rows = await this.dataSource.query<TaskRow[]>(
      `SELECT t.id, t.campaign_id, t.lead_id, t.type, t.step, t.status, t.attempts, t.next_run_at, t.output,
         t.last_error, t.created_at, t.completed_at,
         l.name AS lead_name, l.linkedin_url AS lead_linkedin_url, l.created_at::text AS lead_created_key
       FROM outreach_tasks t JOIN leads l ON l.id = t.lead_id
       WHERE t.campaign_id = $1
         ${after ? 'AND (l.created_at, l.id, t.step) > ($3::timestamptz, $4::uuid, $5::smallint)' : ''}
       ORDER BY l.created_at, l.id, t.step LIMIT $2`,
      after ? [campaignId, limit + 1, ...after] : [campaignId, limit + 1],
    );
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    return {
      items: items.map(toTaskView),
      nextCursor: rows.length > limit ? encodeCursor([last.lead_created_key, last.lead_id, last.step]) : null,
    };
  }

  quota(campaign: Campaign, ownerLimits: Readonly<Record<ActionKind, number>>, day: string): Promise<QuotaState> {
    return readQuota(this.dataSource, campaign, ownerLimits, day);
  }

  async listDoNotContact(ownerId: string): Promise<readonly DoNotContactEntry[]> {
    const rows = await this.dataSource.query<DoNotContactRow[]>(
      `SELECT ${DO_NOT_CONTACT_COLUMNS} FROM do_not_contact WHERE owner_id = $1 ORDER BY created_at DESC, id DESC`,
      [ownerId],
    );
    return rows.map(toDoNotContactEntry);
  }

  async addDoNotContact(ownerId: string, entry: { kind: DoNotContactKind; value: string }, now: Date): Promise<DoNotContactEntry> {
    // A no-op update instead of DO NOTHING so that RETURNING gives the listed entry too,
    // in one statement even when two requests add the same value at once.
    const rows = await this.dataSource.query<DoNotContactRow[]>(
      `INSERT INTO do_not_contact AS d (owner_id, kind, value, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (owner_id, value) DO UPDATE SET value = d.value
       RETURNING ${DO_NOT_CONTACT_COLUMNS}`,
      [ownerId, entry.kind, entry.value, now],
    );
    return toDoNotContactEntry(rows[0]);
  }

  async removeDoNotContact(ownerId: string, entryId: string): Promise<boolean> {
    if (!isUuid(entryId)) return false;
    const [rows] = await this.dataSource.query<[unknown[], number]>(
      `DELETE FROM do_not_contact WHERE id = $1 AND owner_id = $2 RETURNING id`,
      [entryId, ownerId],
    );
    return rows.length > 0;
  }
}

function toCampaign(row: CampaignRow): Campaign {
  return {
    id: row.id,
    ownerId: row.owner_id,
    name: row.name,
    status: row.status,
    dailyLimits: {
      profile_lookup: row.limit_profile_lookup,
      linkedin_message: row.limit_linkedin_message,
      email: row.limit_email,
    },
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    completedAt: row.completed_at === null ? null : new Date(row.completed_at),
  };
}

function toLead(row: LeadRow): Lead {
  return {
    id: row.id,
    campaignId: row.campaign_id,
    name: row.name,
    linkedinUrl: row.linkedin_url,
    email: row.email,
    status: row.status,
    createdAt: new Date(row.created_at),
  };
}

function toTaskView(row: TaskRow): TaskView {
  return {
    id: row.id,
    campaignId: row.campaign_id,
    leadId: row.lead_id,
    type: row.type,
    step: Number(row.step),
    status: row.status,
    attempts: row.attempts,
    nextRunAt: new Date(row.next_run_at),
    output: row.output,
    lastError: row.last_error,
    createdAt: new Date(row.created_at),
    completedAt: row.completed_at === null ? null : new Date(row.completed_at),
    leadName: row.lead_name,
    leadLinkedinUrl: row.lead_linkedin_url,
  };
}

function toDoNotContactEntry(row: DoNotContactRow): DoNotContactEntry {
  return { id: row.id, kind: row.kind, value: row.value, createdAt: new Date(row.created_at) };
}

function isTaskCursor(value: unknown): value is [string, string, number] {
  return (
    Array.isArray(value) &&
    value.length === 3 &&
    isTimestamp(value[0]) &&
    isUuid(value[1]) &&
    Number.isInteger(value[2]) &&
    (value[2] as number) >= 1 &&
    (value[2] as number) <= TASK_STEPS.length
  );
}
