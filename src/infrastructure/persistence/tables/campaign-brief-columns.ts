import { z } from 'zod';
import type { CampaignBrief, MessageTemplates } from '../../../domain/outreach/brief';
import { join, raw, sql, type Statement } from '../sql';

/**
 * A campaign's brief and templates in its own columns of `campaigns` (migration
 * CampaignBrief1765670400000): how they are named, read and written, for the campaign
 * repository and the outreach cycle store alike.
 */
const BRIEF_COLUMN: Readonly<Record<keyof CampaignBrief, string>> = {
  offer: 'brief_offer',
  tone: 'brief_tone',
  callToAction: 'brief_call_to_action',
  senderName: 'brief_sender_name',
  signature: 'brief_signature',
};

const TEMPLATE_COLUMN: Readonly<Record<keyof MessageTemplates, string>> = {
  linkedinMessage: 'template_linkedin_message',
  emailSubject: 'template_email_subject',
  emailBody: 'template_email_body',
};

const COLUMNS: readonly string[] = [...Object.values(BRIEF_COLUMN), ...Object.values(TEMPLATE_COLUMN)];

/** The column list, to put in a SELECT or RETURNING: `brief_offer, …` (with `prefix.` when given). */
export function briefColumns(prefix?: string): string {
  return COLUMNS.map((column) => (prefix ? `${prefix}.${column}` : column)).join(', ');
}

const text = z.string().nullable();

/** The columns' fields in a row schema. */
export const BRIEF_ROW_FIELDS = {
  brief_offer: text,
  brief_tone: text,
  brief_call_to_action: text,
  brief_sender_name: text,
  brief_signature: text,
  template_linkedin_message: text,
  template_email_subject: text,
  template_email_body: text,
};

type BriefRow = z.output<z.ZodObject<typeof BRIEF_ROW_FIELDS>>;

/** The brief and templates of a row read with briefColumns. */
export function briefOfRow(row: BriefRow): { brief: CampaignBrief; templates: MessageTemplates } {
  return {
    brief: {
      offer: row.brief_offer,
      tone: row.brief_tone,
      callToAction: row.brief_call_to_action,
      senderName: row.brief_sender_name,
      signature: row.brief_signature,
    },
    templates: {
      linkedinMessage: row.template_linkedin_message,
      emailSubject: row.template_email_subject,
      emailBody: row.template_email_body,
    },
  };
}

/** For an INSERT: the column list and the values, in the same order. */
export function briefInsert(input: { brief: CampaignBrief; templates: MessageTemplates }): { columns: Statement; values: Statement } {
  return {
    columns: raw(briefColumns()),
    values: join([...valuesOf(BRIEF_COLUMN, input.brief), ...valuesOf(TEMPLATE_COLUMN, input.templates)], ', '),
  };
}

/** For an UPDATE's SET: one `column = value` per field of what changes. */
export function briefSet(changes: { brief?: CampaignBrief; templates?: MessageTemplates }): Statement[] {
  const set = <T extends { readonly [K in keyof T]: string | null }>(columns: Readonly<Record<keyof T, string>>, values: T | undefined) =>
    values === undefined
      ? []
      : (Object.entries(columns) as [keyof T, string][]).map(([field, column]) => sql`${raw(column)} = ${values[field]}`);
  return [...set(BRIEF_COLUMN, changes.brief), ...set(TEMPLATE_COLUMN, changes.templates)];
}

function valuesOf<T extends { readonly [K in keyof T]: string | null }>(
  columns: Readonly<Record<keyof T, string>>,
  values: T,
): Statement[] {
  return (Object.keys(columns) as (keyof T)[]).map((field) => sql`${values[field]}::text`);
}
