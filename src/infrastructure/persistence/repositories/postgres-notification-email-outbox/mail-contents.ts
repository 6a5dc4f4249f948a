import { z } from 'zod';
import type { MailItem, SubjectNow } from '../../../../domain/notifications/mail-items';
import { DRAFT_STATUSES } from '../../../../domain/outreach/review';
import { selectRows, type Sql, sql } from '../../sql';
import { NOTIFICATION_EVENT, NOTIFICATION_FACTS, NOTIFICATION_SUBJECT } from '../../tables/notifications';

/*
 * What a mail says of each notification, read when it is written: the notification, whether the
 * person still wants it (their choice for its event, and for an admins' one whether they are
 * still an admin), and its subject as the stored rows hold it now (a draft as it stands, with
 * its lead and campaign; a question with its answer; a campaign; a policy version).
 */

const ITEM_ROW = z.object({
  seq: z.coerce.number(),
  event: NOTIFICATION_EVENT,
  subject: NOTIFICATION_SUBJECT,
  facts: NOTIFICATION_FACTS,
  at: z.date(),
  to_admins: z.boolean(),
  wanted: z.boolean(),
  draft_status: z.enum(DRAFT_STATUSES).nullable(),
  draft_action: z.string().nullable(),
  draft_args: z.record(z.string(), z.unknown()).nullable(),
  lead_name: z.string().nullable(),
  draft_campaign: z.string().nullable(),
  draft_expires_at: z.date().nullable(),
  owner_email: z.string().nullable(),
  question: z.string().nullable(),
  question_expires_at: z.date().nullable(),
  resolution: z.enum(['confirmed', 'cancelled', 'dropped']).nullable(),
  campaign_name: z.string().nullable(),
  campaign_status: z.string().nullable(),
  policy_version: z.number().nullable(),
  author_email: z.string().nullable(),
  reason: z.string().nullable(),
  rules: z.number().nullable(),
});
type ItemRow = z.output<typeof ITEM_ROW>;

/** A subject's id as the column it names, or NULL for a subject of another kind (never a cast of something else). */
const idOf = (kind: string) => sql`CASE WHEN n.subject ->> 'kind' = ${kind} THEN (n.subject ->> 'id')::uuid END`;

/** The notifications `seqs` waiting for `userId`, oldest first, that the person still wants, each with its subject now. */
export async function mailItemsOf(db: Sql, userId: string, seqs: readonly number[]): Promise<MailItem[]> {
  const rows = await selectRows(
    db,
    sql`SELECT n.seq, n.event, n.subject, n.facts, n.created_at AS at, n.recipient_id IS NULL AS to_admins,
          (n.recipient_id IS NOT NULL OR u.role = 'admin')
            AND NOT EXISTS (SELECT 1 FROM notification_preferences p
                            WHERE p.user_id = u.id AND p.channel = 'email' AND p.event = n.event AND NOT p.enabled) AS wanted,
          d.status AS draft_status, d.action AS draft_action, d.args AS draft_args, l.name AS lead_name, dc.name AS draft_campaign,
          d.expires_at AS draft_expires_at, o.email AS owner_email,
          pc.prompt AS question, pc.expires_at AS question_expires_at, pc.resolution,
          c.name AS campaign_name, c.status AS campaign_status,
          pv.version AS policy_version, pv.author_email, pv.reason, jsonb_array_length(pv.document -> 'rules') AS rules
        FROM notification_emails q
        JOIN notifications n ON n.seq = q.seq
        JOIN users u ON u.id = q.user_id
        LEFT JOIN outreach_drafts d ON d.id = ${idOf('draft')}
        LEFT JOIN leads l ON l.id = d.lead_id
        LEFT JOIN campaigns dc ON dc.id = d.campaign_id
        LEFT JOIN users o ON o.id = d.owner_id
        LEFT JOIN pending_confirmations pc ON pc.id = ${idOf('confirmation')} AND pc.user_id = q.user_id
        LEFT JOIN campaigns c ON c.id = ${idOf('campaign')}
        LEFT JOIN policy_versions pv ON pv.version = CASE WHEN n.subject ->> 'kind' = 'policy' THEN (n.subject ->> 'version')::int END
        WHERE q.user_id = ${userId} AND q.seq = ANY(${seqs.map(String)}::bigint[])
        ORDER BY n.seq`,
    ITEM_ROW,
  );
  return rows
    .filter((row) => row.wanted)
    .map((row) => ({
      seq: row.seq,
      event: row.event,
      subject: row.subject,
      facts: row.facts,
      at: row.at,
      toAdmins: row.to_admins,
      now: subjectNow(row),
    }));
}

function subjectNow(row: ItemRow): SubjectNow {
  switch (row.subject.kind) {
    case 'draft':
      return row.draft_status === null
        ? { kind: 'gone' }
        : {
            kind: 'draft',
            status: row.draft_status,
            action: row.draft_action!,
            args: row.draft_args ?? {},
            leadName: row.lead_name ?? '',
            campaignName: row.draft_campaign ?? '',
            expiresAt: row.draft_expires_at!,
            ownerEmail: row.owner_email,
          };
    case 'confirmation':
      return row.question === null
        ? { kind: 'gone' }
        : { kind: 'confirmation', question: row.question, expiresAt: row.question_expires_at!, resolution: row.resolution };
    case 'campaign':
      return row.campaign_name === null ? { kind: 'gone' } : { kind: 'campaign', name: row.campaign_name, status: row.campaign_status! };
    case 'policy':
      return row.policy_version === null
        ? { kind: 'gone' }
        : { kind: 'policy', version: row.policy_version, authorEmail: row.author_email!, reason: row.reason ?? '', rules: row.rules ?? 0 };
    case 'budget':
      return { kind: 'budget' };
    case 'webhook':
      return { kind: 'webhook' };
  }
}
