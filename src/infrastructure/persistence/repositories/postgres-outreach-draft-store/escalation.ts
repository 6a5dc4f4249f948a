import { z } from 'zod';
import type { EscalatedDraft } from '../../../../application/outreach/ports/outreach-draft-store.port';
import type { Page } from '../../../../application/shared/page';
import { isUuid } from '../../../../domain/shared/uuid';
import { decodeCursor, encodeCursor, isTimeAndIdCursor } from '../../cursor';
import { empty, type Sql, selectRow, selectRows, sql } from '../../sql';
import type { AppendInTransaction } from '../../tables/audit-log';
import { enqueueNotification } from '../../tables/notifications';
import { DRAFT_COLUMNS, DRAFT_FROM, DRAFT_ROW, withoutKey } from './draft-rows';
import { reviewEntry } from './review-entry';

/*
 * A policy rule's `fallback: escalate`: a draft its owner did not decide in time goes before
 * the admins for as long again (PostgresOutreachDraftStore.expire runs escalateDue first), and
 * what the admins' queue reads.
 */

const ESCALATED_ROW = z.object({
  id: z.string(),
  owner_id: z.string(),
  campaign_id: z.string(),
  task_id: z.string(),
  action: z.string(),
  arguments_hash: z.string(),
  expires_at: z.date(),
});

/**
 * Escalates up to `limit` undecided drafts past their time whose rule says `escalate`: from
 * `now`, they wait as long again as their owner was given (the old expires_at - created_at),
 * and then expire with their task cancelled (on_expiry becomes reject, the rule's other fallback:
 * REVIEW_EXPIRED). Still awaiting review, the slot still held, the task still AwaitingReview;
 * each is audited as escalate_draft by its owner, and notified (draft.escalated) to every admin
 * and to its owner, in the same transaction.
 * @returns how many were escalated.
 */
export async function escalateDue(db: Sql, append: AppendInTransaction, now: Date, limit: number): Promise<number> {
  // SET reads the row as it was: the new expiry adds the original timeout to now.
  const escalated = await selectRows(
    db,
    sql`UPDATE outreach_drafts d SET escalated_at = ${now}, expires_at = ${now}::timestamptz + (d.expires_at - d.created_at),
          on_expiry = 'reject', updated_at = ${now}
        WHERE d.id IN (
          SELECT s.id FROM outreach_drafts s
          WHERE s.status = 'awaiting_review' AND s.on_expiry = 'escalate' AND s.expires_at <= ${now}
          ORDER BY s.expires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING d.id, d.owner_id, d.campaign_id, d.task_id, d.action, d.arguments_hash, d.expires_at`,
    ESCALATED_ROW,
  );
  for (const draft of escalated) {
    await append(
      reviewEntry(draft, draft.owner_id, 'escalate_draft', { draftId: draft.id, argumentsHash: draft.arguments_hash }),
      {
        status: 'succeeded',
        result: { draftId: draft.id, decision: 'escalated', action: draft.action, expiresAt: draft.expires_at.toISOString() },
        durationMs: 0,
      },
      null,
    );
    const facts = {
      action: draft.action,
      campaignId: draft.campaign_id,
      ownerId: draft.owner_id,
      expiresAt: draft.expires_at.toISOString(),
    };
    for (const recipientId of [null, draft.owner_id]) {
      await enqueueNotification(db, { recipientId, event: 'draft.escalated', subject: { kind: 'draft', id: draft.id }, facts, at: now });
    }
  }
  return escalated.length;
}

/** The escalated drafts awaiting review, of every owner, the latest escalated first (outreach_drafts_escalated). */
export async function listEscalated(db: Sql, limit: number, cursor: string | null): Promise<Page<EscalatedDraft>> {
  const after = decodeCursor(cursor, isTimeAndIdCursor);
  const rows = await selectRows(
    db,
    sql`SELECT ${DRAFT_COLUMNS}, d.escalated_at::text AS escalated_key, u.email AS owner_email
        FROM ${DRAFT_FROM} LEFT JOIN users u ON u.id = d.owner_id
        WHERE d.status = 'awaiting_review' AND d.escalated_at IS NOT NULL
          ${after ? sql`AND (d.escalated_at, d.id) < (${after[0]}::timestamptz, ${after[1]}::uuid)` : empty}
        ORDER BY d.escalated_at DESC, d.id DESC LIMIT ${limit + 1}`,
    z.intersection(DRAFT_ROW, z.object({ escalated_key: z.string(), owner_email: z.string().nullable() })),
  );
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map(({ escalated_key: _key, owner_email, ...draft }) => ({ ...withoutKey(draft), ownerEmail: owner_email })),
    nextCursor: rows.length > limit ? encodeCursor([last.escalated_key, last.id]) : null,
  };
}

/** The owner of a draft that was escalated, whatever became of it since; null for any other. */
export async function escalatedOwner(db: Sql, draftId: string): Promise<string | null> {
  if (!isUuid(draftId)) return null;
  const row = await selectRow(
    db,
    sql`SELECT owner_id FROM outreach_drafts WHERE id = ${draftId} AND escalated_at IS NOT NULL`,
    z.object({ owner_id: z.string() }),
  );
  return row?.owner_id ?? null;
}

/** The condition an admin's decision adds to its conditional update: only an escalated draft. */
export function onlyEscalated(escalatedOnly: boolean | undefined) {
  return escalatedOnly ? sql`AND escalated_at IS NOT NULL` : empty;
}
