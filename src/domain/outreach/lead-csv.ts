import { DomainValidationError } from '../shared/domain-error';
import { draftLead, InvalidLeadError, type LeadDraft } from './lead';

export const LEAD_CSV_DEFAULT_MAX_ROWS = 5000;

/** `line` is the physical line (1-based) where the offending record starts in the file. */
export interface LeadRowError {
  readonly line: number;
  readonly field: string | null;
  readonly message: string;
}

export interface ParsedLeadCsv {
  readonly leads: readonly { readonly line: number; readonly lead: LeadDraft }[];
  readonly errors: readonly LeadRowError[];
}

/** One record of a CSV file as the CsvReader port reads it. */
export interface CsvRecord {
  /** Physical line (1-based) where the record starts: CRLF, LF and a lone CR each end a line, inside quotes too. */
  readonly line: number;
  readonly fields: readonly string[];
}

/**
 * The file's quotes are broken (a quoted field never closed, or text after a closing quote):
 * where its records end cannot be known, so none of it is imported. Names the line.
 */
export class MalformedCsvError extends DomainValidationError {
  readonly code = 'OUTREACH.MALFORMED_CSV';

  constructor(
    readonly line: number,
    problem: string,
  ) {
    super('csv', `line ${line}: ${problem}; nothing was imported`);
  }
}

type Column = 'name' | 'linkedinUrl' | 'email' | 'firstName' | 'lastName';

/** Normalised header names per column, most specific first: it decides which of two matching columns wins. */
const COLUMN_ALIASES: Readonly<Record<Column, readonly string[]>> = {
  name: ['name', 'fullname'],
  linkedinUrl: ['linkedinurl', 'linkedin', 'profileurl', 'url'],
  email: ['email', 'emailaddress'],
  firstName: ['firstname'],
  lastName: ['lastname'],
};

const normaliseHeader = (raw: string) => raw.toLowerCase().replace(/[\s_-]+/g, '');

function resolveColumns(header: readonly string[]): Partial<Record<Column, number>> {
  const names = header.map(normaliseHeader);
  const columns: Partial<Record<Column, number>> = {};
  for (const column of Object.keys(COLUMN_ALIASES) as Column[]) {
    for (const alias of COLUMN_ALIASES[column]) {
      const index = names.indexOf(alias);
      if (index !== -1) {
        columns[column] = index;
        break;
      }
    }
  }
  return columns;
}

const isBlank = (record: CsvRecord) => record.fields.every((field) => field.trim() === '');

/**
 * The leads of an uploaded CSV, from its records (read by the CsvReader port): which columns
 * hold what, then each row as a lead. Row problems become `errors` with the physical line
 * number; valid rows become `leads`. Never throws.
 *
 * `maxRows` counts non-blank data rows, valid or not; the row after the limit is reported
 * and nothing further is read, but the rows before it are still returned.
 */
export function leadsFromCsv(all: readonly CsvRecord[], limits: { maxRows?: number } = {}): ParsedLeadCsv {
  const maxRows = limits.maxRows ?? LEAD_CSV_DEFAULT_MAX_ROWS;
  const headerAt = all.findIndex((record) => !isBlank(record));
  if (headerAt === -1) {
    return {
      leads: [],
      errors: [{ line: 1, field: null, message: 'the file is empty; expected a header row with name and linkedinUrl columns' }],
    };
  }
  const header = all[headerAt];
  const records = all.slice(headerAt + 1);

  const columns = resolveColumns(header.fields);
  const hasName = columns.name !== undefined || columns.firstName !== undefined || columns.lastName !== undefined;
  const missing = [...(hasName ? [] : ['name']), ...(columns.linkedinUrl === undefined ? ['linkedinUrl'] : [])];
  if (missing.length > 0) {
    const message = `missing required column${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`;
    return { leads: [], errors: [{ line: header.line, field: null, message }] };
  }

  const leads: { line: number; lead: LeadDraft }[] = [];
  const errors: LeadRowError[] = [];
  const firstLineOfUrl = new Map<string, number>();
  const cell = (record: CsvRecord, column: Column) => {
    const index = columns[column];
    return index === undefined ? undefined : (record.fields[index] ?? '');
  };
  let rows = 0;

  for (const record of records) {
    if (isBlank(record)) continue;
    if (rows >= maxRows) {
      errors.push({
        line: record.line,
        field: null,
        message: `the file has more than ${maxRows} rows; import at most ${maxRows} at a time`,
      });
      break;
    }
    rows++;
    if (record.fields.length > header.fields.length) {
      errors.push({
        line: record.line,
        field: null,
        message: `the row has ${record.fields.length} fields but the header has ${header.fields.length}`,
      });
      continue;
    }

    const name =
      cell(record, 'name') ??
      [cell(record, 'firstName'), cell(record, 'lastName')]
        .map((part) => part?.trim() ?? '')
        .filter((part) => part !== '')
        .join(' ');
    let lead: LeadDraft;
    try {
      lead = draftLead({ name, linkedinUrl: cell(record, 'linkedinUrl'), email: cell(record, 'email') });
    } catch (error) {
      if (!(error instanceof InvalidLeadError)) throw error;
      errors.push({ line: record.line, field: error.field, message: error.message });
      continue;
    }

    const firstLine = firstLineOfUrl.get(lead.linkedinUrl);
    if (firstLine !== undefined) {
      errors.push({ line: record.line, field: 'linkedinUrl', message: `duplicate of line ${firstLine}` });
      continue;
    }
    firstLineOfUrl.set(lead.linkedinUrl, record.line);
    leads.push({ line: record.line, lead });
  }

  return { leads, errors };
}
