import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { z } from 'zod';
import { ErasureStore } from '../../../application/privacy/ports/erasure-store.port';
import { type ErasureCounts, erasureNeedles, type ErasureStamp } from '../../../domain/privacy/erasure';
import { emailKey } from '../../../domain/shared/email-address';
import { ErasedAddressKey } from '../../security/erased-address-key';
import { eraseAuditRows } from '../tables/audit-log';
import { eraseListedValues } from '../tables/do-not-contact';
import { eraseDecisionText } from '../tables/decision-logs';
import { changeRows, inTransaction, selectRow, selectRows, sql, type Statement } from '../sql';

const EMAIL_ROW = z.object({ email: z.string() });
const LEAD_ROW = z.object({
  id: z.string(),
  name: z.string(),
  linkedin_url: z.string(),
  email: z.string().nullable(),
  email_key: z.string().nullable(),
});
const TASK_ROW = z.object({ id: z.string() });

type Lead = z.output<typeof LEAD_ROW>;

/**
 * What to erase besides the rows deleted: whose audit and decision rows, which tasks, which
 * texts, and where the texts are looked for. An owner's own erasure (`within`: the owner) finds
 * the texts only in their own rows, conversations and list: a lead's name or an address typed
 * by one person must never empty another person's records. An admin's (`within`: null) finds
 * them anywhere.
 */
interface Sweep {
  readonly userIds: readonly string[];
  readonly taskIds: readonly string[];
  readonly needles: readonly string[];
  readonly within: string | null;
}

/** A text column holds one of the needles (lower-cased, as they are). */
const mentions = (text: Statement, needles: readonly string[]): Statement =>
  sql`EXISTS (SELECT 1 FROM unnest(${needles}::text[]) n WHERE strpos(lower(${text}), n) > 0)`;

/**
 * Erasure over the tables (docs/decisions/0017-erasure-and-retention.md), one transaction per
 * request. Rows found by their ids (the account's rows, the lead's tasks) and rows whose text
 * mentions the person (their email key, profile URL, name) are erased: audit rows emptied with
 * their links kept, decision rows' text emptied, other people's chat messages and summaries
 * that name them emptied, and the short-lived records that may hold them deleted. The lead or
 * the account row goes last; its tasks, actions, drafts, conversations and campaigns go with
 * it (foreign keys ON DELETE CASCADE).
 */
@Injectable()
export class PostgresErasureStore extends ErasureStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly erasedKey: ErasedAddressKey,
  ) {
    super();
  }

  eraseAccount(userId: string, stamp: ErasureStamp): Promise<ErasureCounts | null> {
    return inTransaction(this.dataSource, async (db) => {
      const account = await selectRow(db, sql`SELECT email FROM users WHERE id = ${userId}::uuid FOR UPDATE`, EMAIL_ROW);
      if (account === null) return null;
      const leads = await selectRows(
        db,
        sql`SELECT l.id, l.name, l.linkedin_url, l.email, l.email_key FROM leads l JOIN campaigns c ON c.id = l.campaign_id WHERE c.owner_id = ${userId}::uuid`,
        LEAD_ROW,
      );
      // The person's address, wherever it is quoted; their leads' texts only in their own records.
      const quoted = await this.sweep(
        db,
        { userIds: [userId], taskIds: await tasksOf(db, leads), needles: erasureNeedles([account.email]), within: null },
        stamp,
        // The account's own list goes with it; its address on anyone else's list is kept hashed.
        [emailKey(account.email)],
      );
      const own = await this.sweep(
        db,
        { userIds: [], taskIds: [], needles: erasureNeedles(leads.flatMap(leadTexts)), within: userId },
        stamp,
        [],
      );
      const counts = sumCounts(quoted, own);
      const accounts = await changeRows(db, sql`DELETE FROM users WHERE id = ${userId}::uuid`);
      return { ...counts, leads: leads.length, accounts };
    });
  }

  eraseLead(campaignId: string, leadId: string, ownerId: string | null, stamp: ErasureStamp): Promise<ErasureCounts | null> {
    return inTransaction(this.dataSource, async (db) => {
      const lead = await selectRow(
        db,
        sql`SELECT l.id, l.name, l.linkedin_url, l.email, l.email_key FROM leads l JOIN campaigns c ON c.id = l.campaign_id
            WHERE l.id = ${leadId}::uuid AND l.campaign_id = ${campaignId}::uuid
              AND (${ownerId}::uuid IS NULL OR c.owner_id = ${ownerId}::uuid) FOR UPDATE OF l`,
        LEAD_ROW,
      );
      if (lead === null) return null;
      return this.eraseLeads(db, [lead], [], stamp, ownerId);
    });
  }

  eraseByEmail(emailKey: string, ownerId: string | null, stamp: ErasureStamp): Promise<ErasureCounts> {
    return inTransaction(this.dataSource, async (db) => {
      const leads = await selectRows(
        db,
        sql`SELECT l.id, l.name, l.linkedin_url, l.email, l.email_key FROM leads l JOIN campaigns c ON c.id = l.campaign_id
            WHERE l.email_key = ${emailKey} AND (${ownerId}::uuid IS NULL OR c.owner_id = ${ownerId}::uuid) FOR UPDATE OF l`,
        LEAD_ROW,
      );
      return this.eraseLeads(db, leads, [emailKey], stamp, ownerId);
    });
  }

  private async eraseLeads(
    db: EntityManager,
    leads: readonly Lead[],
    texts: readonly string[],
    stamp: ErasureStamp,
    within: string | null,
  ): Promise<ErasureCounts> {
    const counts = await this.sweep(
      db,
      { userIds: [], taskIds: await tasksOf(db, leads), needles: erasureNeedles([...texts, ...leads.flatMap(leadTexts)]), within },
      stamp,
      [...texts, ...leads.flatMap((lead) => [lead.email_key, lead.linkedin_url])],
    );
    const deleted = await changeRows(db, sql`DELETE FROM leads WHERE id = ANY(${leads.map((lead) => lead.id)}::uuid[])`);
    return { ...counts, leads: deleted };
  }

  /** @param listed canonical values (email keys, profile URLs) whose do-not-contact entries are kept hashed. */
  private async sweep(db: EntityManager, sweep: Sweep, stamp: ErasureStamp, listed: readonly (string | null)[]): Promise<ErasureCounts> {
    const { needles, within } = sweep;
    let doNotContact = 0;
    const values = [...new Set(listed.filter((value): value is string => value !== null))];
    if (values.length > 0)
      for (const statement of eraseListedValues(this.erasedKey, values, within)) doNotContact += await changeRows(db, statement);
    const auditRows = await changeRows(db, eraseAuditRows({ actorIds: sweep.userIds, taskIds: sweep.taskIds, needles, within }, stamp));
    const decisionLogs = await changeRows(db, eraseDecisionText(sweep));
    let messages = 0;
    let other = 0;
    if (needles.length > 0) {
      const ofConversations =
        within === null ? sql`TRUE` : sql`conversation_id IN (SELECT id FROM conversations WHERE user_id = ${within}::uuid)`;
      messages += await changeRows(
        db,
        sql`UPDATE messages SET content = '', tool_calls = '[]'::jsonb
            WHERE ${ofConversations} AND ${mentions(sql`content || tool_calls::text`, needles)}`,
      );
      messages += await changeRows(
        db,
        sql`UPDATE conversation_summaries SET content = '' WHERE ${ofConversations} AND ${mentions(sql`content`, needles)}`,
      );
      const ofPerson = within === null ? sql`TRUE` : sql`user_id = ${within}::uuid`;
      await changeRows(db, sql`UPDATE conversations SET title = 'Erased' WHERE ${ofPerson} AND ${mentions(sql`title`, needles)}`);
      other += await changeRows(
        db,
        sql`DELETE FROM pending_confirmations WHERE ${ofPerson} AND ${mentions(sql`arguments::text || prompt`, needles)}`,
      );
      other += await changeRows(db, sql`DELETE FROM mcp_input_requests WHERE ${ofPerson} AND ${mentions(sql`call::text`, needles)}`);
    }
    // Tables of no one person (the sandbox channels, SMTP answers, rate-limit keys): an admin's erasure only.
    if (needles.length > 0 && within === null) {
      for (const statement of [
        sql`DELETE FROM sandbox_linkedin_actions WHERE ${mentions(sql`profile_url || coalesce(message, '') || result::text`, needles)}`,
        sql`DELETE FROM sandbox_email_outbox WHERE ${mentions(sql`to_address || subject || body`, needles)}`,
        sql`DELETE FROM sandbox_faults WHERE ${mentions(sql`target`, needles)}`,
        sql`DELETE FROM email_deliveries WHERE ${mentions(sql`response`, needles)}`,
        sql`DELETE FROM rate_limits WHERE ${mentions(sql`key`, needles)}`,
      ])
        other += await changeRows(db, statement);
    }
    return { auditRows, decisionLogs, messages, leads: 0, accounts: 0, other, doNotContact };
  }
}

function sumCounts(a: ErasureCounts, b: ErasureCounts): ErasureCounts {
  return {
    auditRows: a.auditRows + b.auditRows,
    decisionLogs: a.decisionLogs + b.decisionLogs,
    messages: a.messages + b.messages,
    leads: a.leads + b.leads,
    accounts: a.accounts + b.accounts,
    other: a.other + b.other,
    doNotContact: a.doNotContact + b.doNotContact,
  };
}

/** A lead's texts that other rows may quote. */
function leadTexts(lead: Lead): (string | null)[] {
  return [lead.email, lead.linkedin_url, lead.name];
}

async function tasksOf(db: EntityManager, leads: readonly Lead[]): Promise<string[]> {
  if (leads.length === 0) return [];
  const rows = await selectRows(
    db,
    sql`SELECT id FROM outreach_tasks WHERE lead_id = ANY(${leads.map((lead) => lead.id)}::uuid[])`,
    TASK_ROW,
  );
  return rows.map((row) => row.id);
}
