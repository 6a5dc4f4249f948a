import { Injectable } from '@nestjs/common';
import Papa from 'papaparse';
import { CsvReader } from '../../application/outreach/ports/csv-reader.port';
import { type CsvRecord, MalformedCsvError } from '../../domain/outreach/lead-csv';

const DELIMITERS = [',', ';', '\t', '|'];

const QUOTE_PROBLEMS: Readonly<Record<string, string>> = {
  MissingQuotes: 'a quoted field starting in this row is never closed',
  InvalidQuotes: 'a quoted field has text after its closing quote (inside quotes, write a quote as "")',
};

/** Papa Parse: the delimiter guessed among DELIMITERS, a record at a time for its line. */
@Injectable()
export class PapaparseCsvReader extends CsvReader {
  records(text: string): readonly CsvRecord[] {
    // One kind of line end: Papa Parse takes a single one per file, and a file edited by hand
    // mixes them; a line is then one `\n`, wherever it is.
    const input = (text.startsWith('\uFEFF') ? text.slice(1) : text).replace(/\r\n?/g, '\n');
    // Guessed without blank lines, which would count as rows of one field against every delimiter.
    const { delimiter } = Papa.parse<string[]>(input, { preview: 10, skipEmptyLines: 'greedy', delimitersToGuess: DELIMITERS }).meta;
    const records: CsvRecord[] = [];
    const found: { problem?: MalformedCsvError } = {};
    let line = 1;
    let start = 0;
    Papa.parse<string[]>(input, {
      delimiter,
      step: (row, parser) => {
        const quotes = row.errors.find((error) => error.type === 'Quotes');
        if (quotes) {
          found.problem = new MalformedCsvError(line, QUOTE_PROBLEMS[quotes.code] ?? quotes.message);
          parser.abort();
          return;
        }
        records.push({ line, fields: row.data });
        // The cursor is just past the record's line end: the next record starts there.
        for (let i = start; i < row.meta.cursor; i++) if (input.charCodeAt(i) === 10) line++;
        start = row.meta.cursor;
      },
    });
    if (found.problem) throw found.problem;
    return records;
  }
}
