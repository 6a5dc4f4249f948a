import { z } from 'zod';
import type { StoredDraft } from '../../../../application/outreach/ports/outreach-draft-store.port';
import { CAMPAIGN_STATUSES } from '../../../../domain/outreach/campaign';
import { DRAFT_STATUSES } from '../../../../domain/outreach/review';
import { raw } from '../../sql';

/*
 * How PostgresOutreachDraftStore reads a draft: its row (DRAFT_COLUMNS from DRAFT_FROM) as a
 * StoredDraft, and what a reviewer must see of its target now (TARGET_ROW).
 */

/** A draft with its campaign, task and lead, as the owner's list and the reviewer read it. */
export const DRAFT_ROW = z
  .object({
    id: z.string(),
    status: z.enum(DRAFT_STATUSES),
    owner_id: z.string(),
    campaign_id: z.string(),
    campaign_name: z.string(),
    task_id: z.string(),
    task_type: z.string(),
    lead_id: z.string(),
    lead_name: z.string(),
    decision_id: z.string(),
    attempt: z.number(),
    kind: z.string(),
    action: z.enum(['linkedin_scrape_profile', 'linkedin_send_message', 'send_email']),
    args: z.record(z.string(), z.unknown()),
    reason: z.string(),
    arguments_hash: z.string(),
    quota_day: z.string(),
    edited: z.boolean(),
    reviewer_id: z.string().nullable(),
    reviewed_at: z.date().nullable(),
    created_at: z.date(),
    expires_at: z.date(),
    escalated_at: z.date().nullable(),
    /** created_at as PostgreSQL prints it: microseconds survive the round trip through a cursor. */
    created_key: z.string(),
  })
  .transform((row): StoredDraft & { key: string } => ({
    key: row.created_key,
    id: row.id,
    status: row.status,
    ownerId: row.owner_id,
    campaignId: row.campaign_id,
    campaignName: row.campaign_name,
    taskId: row.task_id,
    taskType: row.task_type,
    leadId: row.lead_id,
    leadName: row.lead_name,
    decisionId: row.decision_id,
    attempt: row.attempt,
    kind: row.kind,
    proposal: { action: row.action, args: row.args, reason: row.reason },
    argumentsHash: row.arguments_hash,
    quotaDay: row.quota_day,
    edited: row.edited,
    reviewerId: row.reviewer_id,
    reviewedAt: row.reviewed_at,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    escalatedAt: row.escalated_at,
  }));

export const DRAFT_COLUMNS = raw(`d.id, d.status, d.owner_id, d.campaign_id, c.name AS campaign_name, d.task_id, t.type AS task_type,
  d.lead_id, l.name AS lead_name, d.decision_id, d.attempt, d.kind, d.action, d.args, d.reason, d.arguments_hash,
  d.quota_day::text AS quota_day, d.edited, d.reviewer_id, d.reviewed_at, d.created_at, d.expires_at, d.escalated_at, d.created_at::text AS created_key`);
export const DRAFT_FROM = raw(`outreach_drafts d JOIN campaigns c ON c.id = d.campaign_id JOIN outreach_tasks t ON t.id = d.task_id
  JOIN leads l ON l.id = d.lead_id`);

/** The draft's target as it stands now: the campaign's status, the task's attempts, the lead's addresses and the matching do-not-contact entries. */
export const TARGET_ROW = z.object({
  campaign_status: z.enum(CAMPAIGN_STATUSES),
  task_attempts: z.number(),
  linkedin_url: z.string(),
  email: z.string().nullable(),
  blocked: z.array(z.string()),
});

/** The stored draft of a DRAFT_ROW, without its cursor key. */
export function withoutKey(row: StoredDraft & { key: string }): StoredDraft {
  return Object.fromEntries(Object.entries(row).filter(([name]) => name !== 'key')) as unknown as StoredDraft;
}
