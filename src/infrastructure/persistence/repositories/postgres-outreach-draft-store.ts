import { createHash, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import {
  type EscalatedDraft,
  type ExpiryReport,
  type HoldDraft,
  type HoldResult,
  OutreachDraftStore,
  type ReviewInput,
  type ReviewResult,
  type StoredDraft,
} from '../../../application/outreach/ports/outreach-draft-store.port';
import type { Page } from '../../../application/shared/page';
import { canonicalJson } from '../../../domain/agent/tool-call-validation';
import {
  DRAFT_EXPIRED,
  DRAFT_STATUSES,
  type DraftProposal,
  type DraftStatus,
  type DraftTarget,
  draftExpirySentence,
  REVIEW_EXPIRED,
  reviewProblem,
} from '../../../domain/outreach/review';
import { isUuid } from '../../../domain/shared/uuid';
import { decodeCursor, encodeCursor, isTimeAndIdCursor } from '../cursor';
import { changeRows, empty, type Sql, selectRow, selectRows, sql } from '../sql';
import { ErasedAddressKey } from '../../security/erased-address-key';
import { AuditAppender } from '../tables/audit-log';
import { listedValues } from '../tables/do-not-contact';
import { enqueueNotification } from '../tables/notifications';
import { OPEN } from '../tables/outreach-tasks';
import { refundHeldSlot, refusalOf, reserveSlots, slotsOf } from '../tables/quota-ledger';
import { DRAFT_COLUMNS, DRAFT_FROM, DRAFT_ROW, TARGET_ROW, withoutKey } from './postgres-outreach-draft-store/draft-rows';
import { escalateDue, escalatedOwner, listEscalated, onlyEscalated } from './postgres-outreach-draft-store/escalation';
import { reviewEntry } from './postgres-outreach-draft-store/review-entry';

const LEAD_ROW = z.object({ lead_id: z.string() });
const SETTLED_ROW = z.object({
  id: z.string(),
  owner_id: z.string(),
  campaign_id: z.string(),
  task_id: z.string(),
  kind: z.string(),
  quota_day: z.string(),
  action: z.string(),
  arguments_hash: z.string(),
  status: z.enum(DRAFT_STATUSES),
});

/** Thrown inside a transaction to roll it back with an answer. */
class Rollback extends Error {
  constructor(readonly result: HoldResult) {
    super(`rolled back: ${result.status}`);
  }
}

/** sha256 of the canonical arguments: the same binding as a chat's pending confirmation. */
export function draftArgumentsHash(args: Readonly<Record<string, unknown>>): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex');
}

/** A lead is done when none of its tasks is open. */
async function settleLead(db: Sql, taskId: string): Promise<void> {
  await changeRows(
    db,
    sql`UPDATE leads l SET status = CASE
          WHEN EXISTS (SELECT 1 FROM outreach_tasks o WHERE o.lead_id = l.id AND o.status IN ${OPEN})
            THEN 'in_progress'
          ELSE 'done' END
        WHERE l.id = (SELECT lead_id FROM outreach_tasks WHERE id = ${taskId}) AND l.status <> 'do_not_contact'`,
  );
}

@Injectable()
export class PostgresOutreachDraftStore extends OutreachDraftStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditAppender,
    private readonly erasedKey: ErasedAddressKey,
  ) {
    super();
  }

  async hold(input: HoldDraft): Promise<HoldResult> {
    const { claim, proposal } = input;
    const argumentsHash = draftArgumentsHash(proposal.args);
    const draftId = randomUUID();
    try {
      return await this.audit.transaction(this.dataSource, async (manager, append) => {
        // Parked: no claim picks an AwaitingReview task up, and it keeps the campaign open.
        const parked = await selectRow(
          manager,
          sql`UPDATE outreach_tasks SET status = 'AwaitingReview', lease_owner = NULL, lease_expires_at = NULL, last_error = NULL,
                updated_at = ${input.now}
              WHERE id = ${claim.taskId} AND lease_owner = ${claim.workerId} AND attempts = ${claim.attempts} AND status = 'InProgress'
              RETURNING lead_id`,
          LEAD_ROW,
        );
        if (!parked) throw new Rollback({ status: 'lease_lost' });
        await append(
          input.audit,
          {
            status: 'confirmation_required',
            result: { draftId, argumentsHash, expiresAt: input.expiresAt.toISOString(), awaiting: 'review' },
            durationMs: 0,
          },
          null,
        );
        await changeRows(
          manager,
          sql`INSERT INTO outreach_drafts (id, campaign_id, owner_id, task_id, lead_id, decision_id, attempt, action, kind, args, reason,
                arguments_hash, status, quota_day, created_at, expires_at, updated_at, on_expiry)
              VALUES (${draftId}, ${claim.campaignId}, ${claim.ownerId}, ${claim.taskId}, ${parked.lead_id}, ${input.decisionId},
                ${claim.attempts}, ${proposal.action}, ${input.kind}, ${JSON.stringify(proposal.args)}, ${proposal.reason},
                ${argumentsHash}, 'awaiting_review', ${input.day}::date, ${input.now}, ${input.expiresAt}, ${input.now},
                ${input.onExpiry ?? 'redraft'})`,
        );
        await enqueueNotification(manager, {
          recipientId: claim.ownerId,
          event: 'draft.awaiting_review',
          subject: { kind: 'draft', id: draftId },
          facts: { action: proposal.action, campaignId: claim.campaignId, expiresAt: input.expiresAt.toISOString() },
          at: input.now,
        });
        // The same reservation the action itself takes (the day's and the rolling week's limits of both scopes),
        // last, as there: its counters stay locked until the commit.
        const refused = await reserveSlots(manager, slotsOf(claim, input));
        if (refused)
          throw new Rollback({ status: 'quota_exceeded', scope: refused.scope, block: await refusalOf(manager, refused, input.now) });
        return { status: 'held' as const, draftId, argumentsHash, expiresAt: input.expiresAt };
      });
    } catch (error) {
      if (error instanceof Rollback) return error.result;
      throw error;
    }
  }

  async list(ownerId: string, status: DraftStatus | null, limit: number, cursor: string | null): Promise<Page<StoredDraft>> {
    const after = decodeCursor(cursor, isTimeAndIdCursor);
    const rows = await selectRows(
      this.dataSource,
      sql`SELECT ${DRAFT_COLUMNS} FROM ${DRAFT_FROM}
          WHERE d.owner_id = ${ownerId} ${status ? sql`AND d.status = ${status}` : empty}
            ${after ? sql`AND (d.created_at, d.id) < (${after[0]}::timestamptz, ${after[1]}::uuid)` : empty}
          ORDER BY d.created_at DESC, d.id DESC LIMIT ${limit + 1}`,
      DRAFT_ROW,
    );
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    return { items: items.map(withoutKey), nextCursor: rows.length > limit ? encodeCursor([last.key, last.id]) : null };
  }

  async get(ownerId: string, draftId: string): Promise<{ draft: StoredDraft; target: DraftTarget } | null> {
    if (!isUuid(draftId)) return null;
    const row = await selectRow(
      this.dataSource,
      sql`SELECT ${DRAFT_COLUMNS} FROM ${DRAFT_FROM} WHERE d.id = ${draftId} AND d.owner_id = ${ownerId}`,
      DRAFT_ROW,
    );
    if (!row) return null;
    const target = await selectRow(
      this.dataSource,
      sql`SELECT c.status AS campaign_status, t.attempts AS task_attempts, l.linkedin_url, l.email,
            ${listedValues(this.erasedKey, sql`d.owner_id`, sql`l.linkedin_url`, sql`l.email_key`)} AS blocked
          FROM ${DRAFT_FROM} WHERE d.id = ${draftId}`,
      TARGET_ROW,
    );
    const draft = withoutKey(row);
    return {
      draft,
      target: {
        campaign: { id: draft.campaignId, name: draft.campaignName, status: target!.campaign_status },
        task: { id: draft.taskId, type: draft.taskType, attempts: target!.task_attempts },
        lead: { name: draft.leadName, linkedinUrl: target!.linkedin_url, email: target!.email },
        doNotContact: target!.blocked,
      },
    };
  }

  async approve(input: ReviewInput & { edited: DraftProposal | null }): Promise<ReviewResult> {
    if (!isUuid(input.draftId)) return { ok: false, problem: 'not_found' };
    const args = input.edited ? JSON.stringify(input.edited.args) : null;
    const newHash = input.edited ? draftArgumentsHash(input.edited.args) : null;
    return this.audit.transaction(this.dataSource, async (manager, append) => {
      // One conditional statement: a second (or stale) approval finds no row to change.
      const settled = await selectRow(
        manager,
        sql`UPDATE outreach_drafts SET status = 'approved', args = COALESCE(${args}::jsonb, args),
              arguments_hash = COALESCE(${newHash}, arguments_hash), edited = edited OR ${input.edited !== null}::boolean,
              reviewer_id = ${input.reviewerId}, reviewed_at = ${input.now}, updated_at = ${input.now}
            WHERE id = ${input.draftId} AND owner_id = ${input.ownerId} AND status = 'awaiting_review'
              AND arguments_hash = ${input.argumentsHash} AND expires_at > ${input.now} ${onlyEscalated(input.escalatedOnly)}
            RETURNING id, owner_id, campaign_id, task_id, kind, quota_day::text AS quota_day, action, arguments_hash, status`,
        SETTLED_ROW,
      );
      if (!settled) return this.whyNot(manager, input);
      await changeRows(
        manager,
        sql`UPDATE outreach_tasks SET status = 'Pending', next_run_at = ${input.now}, last_error = NULL, updated_at = ${input.now}
            WHERE id = ${settled.task_id} AND status = 'AwaitingReview'`,
      );
      await append(
        reviewEntry(settled, input.reviewerId, 'approve_draft', {
          draftId: settled.id,
          argumentsHash: input.argumentsHash,
          ...(input.edited ? { edits: input.edited.args } : {}),
        }),
        {
          status: 'succeeded',
          result: {
            draftId: settled.id,
            decision: 'approved',
            action: settled.action,
            argumentsHash: settled.arguments_hash,
            reviewedHash: input.argumentsHash,
            edited: input.edited !== null,
            reviewerId: input.reviewerId,
          },
          durationMs: 0,
        },
        null,
      );
      return { ok: true as const, draft: (await this.read(manager, settled.id))! };
    });
  }

  async reject(input: ReviewInput): Promise<ReviewResult> {
    if (!isUuid(input.draftId)) return { ok: false, problem: 'not_found' };
    return this.audit.transaction(this.dataSource, async (manager, append) => {
      const settled = await selectRow(
        manager,
        sql`UPDATE outreach_drafts SET status = 'rejected', reviewer_id = ${input.reviewerId}, reviewed_at = ${input.now},
              updated_at = ${input.now}
            WHERE id = ${input.draftId} AND owner_id = ${input.ownerId} AND status = 'awaiting_review'
              AND arguments_hash = ${input.argumentsHash} ${onlyEscalated(input.escalatedOnly)}
            RETURNING id, owner_id, campaign_id, task_id, kind, quota_day::text AS quota_day, action, arguments_hash, status`,
        SETTLED_ROW,
      );
      if (!settled) return this.whyNot(manager, { ...input, now: new Date(0) });
      await refundHeldSlot(manager, settled);
      await changeRows(
        manager,
        sql`UPDATE outreach_tasks SET status = 'Cancelled', last_error = 'REJECTED_BY_REVIEWER', completed_at = ${input.now},
              updated_at = ${input.now}
            WHERE id = ${settled.task_id} AND status = 'AwaitingReview'`,
      );
      await settleLead(manager, settled.task_id);
      await append(
        reviewEntry(settled, input.reviewerId, 'reject_draft', { draftId: settled.id, argumentsHash: input.argumentsHash }),
        {
          status: 'succeeded',
          result: { draftId: settled.id, decision: 'rejected', action: settled.action, quotaRefunded: true, reviewerId: input.reviewerId },
          durationMs: 0,
        },
        null,
      );
      return { ok: true as const, draft: (await this.read(manager, settled.id))! };
    });
  }

  async expire(now: Date, limit: number): Promise<ExpiryReport> {
    return this.audit.transaction(this.dataSource, async (manager, append) => {
      // First, what goes to the admins rather than expiring: from now on it expires later, and its task is then cancelled.
      const escalated = await escalateDue(manager, append, now, limit);
      const expired = await selectRows(
        manager,
        sql`UPDATE outreach_drafts d SET status = 'expired', updated_at = ${now}
            WHERE d.id IN (
              SELECT s.id FROM outreach_drafts s JOIN outreach_tasks t ON t.id = s.task_id
              WHERE (s.status = 'awaiting_review' AND s.expires_at <= ${now} AND s.on_expiry <> 'escalate')
                 OR (s.status = 'approved' AND t.status IN ('Completed', 'Failed', 'Cancelled'))
              ORDER BY s.expires_at LIMIT ${limit} FOR UPDATE OF s SKIP LOCKED)
            RETURNING d.id, d.owner_id, d.campaign_id, d.task_id, d.kind, d.quota_day::text AS quota_day, d.action, d.arguments_hash,
              CASE WHEN d.reviewed_at IS NULL THEN 'awaiting_review' ELSE 'approved' END AS status, d.on_expiry,
              d.escalated_at IS NOT NULL AS escalated, (EXTRACT(EPOCH FROM d.expires_at - d.created_at) * 1000)::float8 AS waited_ms`,
        SETTLED_ROW.extend({ on_expiry: z.enum(['redraft', 'reject', 'escalate']), escalated: z.boolean(), waited_ms: z.number() }),
      );
      let voided = 0;
      for (const draft of expired) {
        await refundHeldSlot(manager, draft);
        if (draft.status === 'approved') voided++;
        const cancelsTask = draft.on_expiry === 'reject' && draft.status === 'awaiting_review';
        if (cancelsTask) {
          // A policy rule's reviewer did not decide in time, and its fallback (`reject`) cancels the task: expired, not refused.
          await changeRows(
            manager,
            sql`UPDATE outreach_tasks SET status = 'Cancelled', last_error = ${REVIEW_EXPIRED}, completed_at = ${now}, updated_at = ${now}
                WHERE id = ${draft.task_id} AND status = 'AwaitingReview'`,
          );
          await settleLead(manager, draft.task_id);
        } else {
          // A fresh draft is made for the task next time it is claimed.
          await changeRows(
            manager,
            sql`UPDATE outreach_tasks SET status = 'Pending', next_run_at = ${now}, last_error = ${DRAFT_EXPIRED}, updated_at = ${now}
                WHERE id = ${draft.task_id} AND status = 'AwaitingReview'`,
          );
        }
        await append(
          reviewEntry(draft, draft.owner_id, 'expire_draft', { draftId: draft.id, argumentsHash: draft.arguments_hash }),
          {
            status: 'succeeded',
            result: {
              draftId: draft.id,
              decision: 'expired',
              action: draft.action,
              wasApproved: draft.status === 'approved',
              quotaRefunded: true,
              // The admins' time ran out too: the rule escalated it first (its escalate_draft row).
              ...(draft.escalated ? { escalated: true } : {}),
              // Undecided, never refused: what its expiry did to the task (rows before 1768665600000 said
              // `fallback: 'reject'` for REVIEW_EXPIRED), and in the words every door uses.
              ...(draft.status === 'awaiting_review'
                ? {
                    taskLastError: cancelsTask ? REVIEW_EXPIRED : DRAFT_EXPIRED,
                    message: draftExpirySentence(cancelsTask, draft.waited_ms),
                  }
                : {}),
            },
            durationMs: 0,
          },
          null,
        );
        // Nobody decided it in time (an approved one whose task ended without it is only voided).
        if (draft.status === 'awaiting_review') {
          await enqueueNotification(manager, {
            recipientId: draft.owner_id,
            event: 'draft.expired',
            subject: { kind: 'draft', id: draft.id },
            facts: {
              action: draft.action,
              campaignId: draft.campaign_id,
              next: draft.on_expiry === 'reject' ? 'task_cancelled' : 'redraft',
              escalated: draft.escalated,
            },
            at: now,
          });
        }
      }
      return { expired: expired.length - voided, voided, escalated };
    });
  }

  listEscalated(limit: number, cursor: string | null): Promise<Page<EscalatedDraft>> {
    return listEscalated(this.dataSource, limit, cursor);
  }

  escalatedOwner(draftId: string): Promise<string | null> {
    return escalatedOwner(this.dataSource, draftId);
  }

  private async read(db: Sql, draftId: string): Promise<StoredDraft | null> {
    const row = await selectRow(db, sql`SELECT ${DRAFT_COLUMNS} FROM ${DRAFT_FROM} WHERE d.id = ${draftId}`, DRAFT_ROW);
    return row && withoutKey(row);
  }

  /** Why a review changed nothing, read after the conditional update. */
  private async whyNot(
    db: Sql,
    input: { ownerId: string; draftId: string; argumentsHash: string; escalatedOnly?: boolean; now: Date },
  ): Promise<ReviewResult> {
    const row = await selectRow(
      db,
      sql`SELECT ${DRAFT_COLUMNS} FROM ${DRAFT_FROM}
          WHERE d.id = ${input.draftId} AND d.owner_id = ${input.ownerId} ${onlyEscalated(input.escalatedOnly)}`,
      DRAFT_ROW,
    );
    if (!row) return { ok: false, problem: 'not_found' };
    return { ok: false, problem: reviewProblem(row, input) ?? 'not_awaiting_review', status: row.status };
  }
}
