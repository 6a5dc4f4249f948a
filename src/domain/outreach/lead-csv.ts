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

interface CsvRecord {
  /** Physical line where the record starts. */
  readonly line: number;
  readonly fields: readonly string[];
  /** A quoted field ran to the end of the text; the record holds what was read. */
  readonly unterminated: boolean;
}

/**
 * Splits RFC 4180 text into records. CRLF, LF and a lone CR all end a line, both as
 * record separators and when counting lines inside quoted fields, so `line` matches what an
 * editor shows. Lenient where the RFC is strict: a quote inside an unquoted field, or text
 * after a closing quote, is kept literally rather than rejected.
 */
function* csvRecords(text: string): Generator<CsvRecord> {
  const end = text.length;
  let i = 0;
  let line = 1;
  while (i < end) {
    const startLine = line;
    const fields: string[] = [];
    for (;;) {
      let value = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= end) {
            fields.push(value);
            yield { line: startLine, fields, unterminated: true };
            return;
          }
          const ch = text[i];
          if (ch === '"') {
            if (text[i + 1] === '"') {
              value += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (ch === '\n' || (ch === '\r' && text[i + 1] !== '\n')) line++;
          value += ch;
          i++;
        }
      }
      const from = i;
      while (i < end && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') i++;
      value += text.slice(from, i);
      fields.push(value);
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '\r') {
        i += text[i + 1] === '\n' ? 2 : 1;
        line++;
      } else if (text[i] === '\n') {
        i++;
        line++;
      }
      break;
    }
    yield { line: startLine, fields, unterminated: false };
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

const isBlank = (record: CsvRecord) => !record.unterminated && record.fields.every((field) => field.trim() === '');

const UNTERMINATED = 'a quoted field starting in this row is never closed, so the rest of the file was not read';

/**
 * Parses an uploaded leads CSV. Row problems become `errors` with the physical line number;
 * valid rows become `leads`. Never throws for any `text`.
 *
 * `maxRows` counts non-blank data rows, valid or not; the row after the limit is reported
 * and nothing further is read, but the rows before it are still returned.
 */
export function parseLeadCsv(text: string, limits: { maxRows?: number } = {}): ParsedLeadCsv {
  const maxRows = limits.maxRows ?? LEAD_CSV_DEFAULT_MAX_ROWS;
  const records = csvRecords(text.startsWith('\uFEFF') ? text.slice(1) : text);

  // Not `for…of` with `break`: that would close the generator before the data rows are read.
  let header: CsvRecord | undefined;
  for (let next = records.next(); !next.done; next = records.next()) {
    if (!isBlank(next.value)) {
      header = next.value;
      break;
    }
  }
  if (!header) {
    return {
      leads: [],
      errors: [{ line: 1, field: null, message: 'the file is empty; expected a header row with name and linkedinUrl columns' }],
    };
  }
  if (header.unterminated) {
    return { leads: [], errors: [{ line: header.line, field: null, message: UNTERMINATED }] };
  }

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
    if (record.unterminated) {
      errors.push({ line: record.line, field: null, message: UNTERMINATED });
      break;
    }
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
