import type { CsvRecord } from '../../../domain/outreach/lead-csv';

/** Reads CSV text into records; which columns mean what is the domain's (leadsFromCsv). */
export abstract class CsvReader {
  /**
   * Every record of `text`, blank lines included (their fields empty), each with the line it
   * starts on. Takes what spreadsheets write: a delimiter among `,` `;` tab `|` (found from
   * the first rows), a UTF-8 byte order mark, CRLF, LF or CR line ends, quoted fields holding
   * delimiters and newlines, a quote written as two inside a quoted field.
   *
   * @throws MalformedCsvError at the line of the first record whose quotes are broken.
   */
  abstract records(text: string): readonly CsvRecord[];
}
