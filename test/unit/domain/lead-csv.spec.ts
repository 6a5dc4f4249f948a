import fc from 'fast-check';
import { LEAD_CSV_DEFAULT_MAX_ROWS, leadsFromCsv, MalformedCsvError } from '../../../src/domain/outreach/lead-csv';
import { PapaparseCsvReader } from '../../../src/infrastructure/outreach/papaparse-csv-reader';

/** As the import reads a file: the records as the CSV adapter reads them, then the leads. */
const parseLeadCsv = (text: string, limits?: { maxRows?: number }) => leadsFromCsv(new PapaparseCsvReader().records(text), limits);

const url = (slug: string) => `https://www.linkedin.com/in/${slug}/`;

/** Joins records with `newline` and remembers the physical line each one starts on. */
function csvFile(records: readonly string[], newline = '\n') {
  const lines: number[] = [];
  let line = 1;
  for (const record of records) {
    lines.push(line);
    line += record.split(/\r\n|\r|\n/).length;
  }
  return { text: records.join(newline) + newline, lines };
}

const physicalLineCount = (text: string) => text.split(/\r\n|\r|\n/).length;

describe(leadsFromCsv.name, () => {
  it('imports 93 of 100 generated rows and reports the 7 bad ones at their physical lines', () => {
    const bad: Record<number, string> = {
      9: `Bad Url,not a url,`,
      21: `,${url('missing-name')},`,
      34: `Bad Email,${url('bad-email')},bob@`,
      47: `Wrong Host,https://www.facebook.com/in/wrong-host/,`,
      58: `Too Many,${url('too-many')},,surplus,again`,
      72: `Again,https://linkedin.com/in/Person-003,`,
      88: `Empty Url,,`,
    };
    const records = ['Full Name,LinkedIn URL,E-mail,Notes'];
    const dataIndex: number[] = [];
    for (let row = 0; row < 100; row++) {
      if (row % 10 === 5) records.push('');
      const slug = `person-${String(row).padStart(3, '0')}`;
      const notes = row % 7 === 0 ? '"met at the fair,\nsays ""call me"""' : 'cold';
      records.push(bad[row] ?? `Person ${row},${url(slug)},${slug}@example.com,${notes}`);
      dataIndex.push(records.length - 1);
    }
    const { text, lines } = csvFile(records);

    const sut = parseLeadCsv(text);

    const badLines = Object.keys(bad).map((row) => lines[dataIndex[Number(row)]]);
    expect(sut.leads).toHaveLength(93);
    expect(sut.errors.map((error) => error.line)).toEqual(badLines);
    expect(sut.errors.map((error) => error.field)).toEqual([
      'linkedinUrl',
      'name',
      'email',
      'linkedinUrl',
      null,
      'linkedinUrl',
      'linkedinUrl',
    ]);
    expect(sut.errors[5].message).toBe(`duplicate of line ${lines[dataIndex[3]]}`);
    expect(badLines).not.toEqual(Object.keys(bad).map((row) => Number(row) + 2));
    expect(sut.leads[0]).toEqual({
      line: 2,
      lead: { name: 'Person 0', linkedinUrl: url('person-000'), email: 'person-000@example.com' },
    });
  });

  it('reads quoted commas, newlines and escaped quotes, and counts the newlines in line numbers; a name is one line', () => {
    const text = [
      'name,linkedinUrl,email',
      '"Smith, Ann",https://www.linkedin.com/in/ann-smith,',
      '"Bob ""The Builder""",https://www.linkedin.com/in/bob-b,"bob@example.com"',
      '"Carol',
      'Jones",https://www.linkedin.com/in/carol-j,',
      'Dan,https://www.linkedin.com/in/dan-d,""',
    ].join('\n');

    const sut = parseLeadCsv(text);

    expect(sut.errors).toEqual([]);
    expect(sut.leads).toEqual([
      { line: 2, lead: { name: 'Smith, Ann', linkedinUrl: url('ann-smith'), email: null } },
      { line: 3, lead: { name: 'Bob "The Builder"', linkedinUrl: url('bob-b'), email: 'bob@example.com' } },
      { line: 4, lead: { name: 'Carol Jones', linkedinUrl: url('carol-j'), email: null } },
      { line: 6, lead: { name: 'Dan', linkedinUrl: url('dan-d'), email: null } },
    ]);
  });

  it('handles CRLF, a UTF-8 BOM and a lone CR the same way as LF', () => {
    const records = ['name,linkedinUrl', 'Ann,https://www.linkedin.com/in/ann-a', '"Bo\r\nb",https://www.linkedin.com/in/bob-b', 'x,nope'];
    for (const newline of ['\r\n', '\r']) {
      const sut = parseLeadCsv(`\uFEFF${records.join(newline)}${newline}`);

      expect(sut.leads.map(({ line, lead }) => [line, lead.name])).toEqual([
        [2, 'Ann'],
        [3, 'Bo b'],
      ]);
      expect(sut.errors).toEqual([expect.objectContaining({ line: 5, field: 'linkedinUrl' })]);
    }
  });

  it('strips control, bidi and invisible characters from a name, keeping ZWNJ and ZWJ; refuses an email that holds one', () => {
    const text = [
      'name,linkedinUrl,email',
      'Ann\u200B Smith\u00AD\u2060\uFEFF,https://www.linkedin.com/in/ann-smith,',
      '"\u202EhtimS\u202C Bob\u0007\tJones",https://www.linkedin.com/in/bob-j,',
      'Jane boss\u200B@victim.example,https://www.linkedin.com/in/jane-d,',
      'محمد\u200Cرضا 👩\u200D💻,https://www.linkedin.com/in/mr-p,',
      'Dan,https://www.linkedin.com/in/dan-d,dan\u200B@acme.example',
      'Eve,https://www.linkedin.com/in/eve-e,ＥＶＥ＠acme.example',
      '"\u200B\u2066\u2069",https://www.linkedin.com/in/nobody,',
    ].join('\n');

    const sut = parseLeadCsv(text);

    expect(sut.leads.map(({ line, lead }) => [line, lead.name, lead.email])).toEqual([
      [2, 'Ann Smith', null],
      [3, 'htimS Bob Jones', null],
      [4, 'Jane boss@victim.example', null],
      [5, 'محمد\u200Cرضا 👩\u200D💻', null],
      // NFKC, the local part's case kept for delivery (its key lower-cases it).
      [7, 'Eve', 'EVE@acme.example'],
    ]);
    expect(sut.errors).toEqual([
      { line: 6, field: 'email', message: 'email must be a valid email address' },
      { line: 8, field: 'name', message: 'name must be 1 to 200 characters long' },
    ]);
  });

  it('skips blank lines without counting them as rows but keeps them in the line numbers', () => {
    const text = '\n\nname,url\n\n  \nAnn,https://www.linkedin.com/in/ann-a\n,,\n\nBob,https://www.linkedin.com/in/bob-b\n\n';

    const sut = parseLeadCsv(text, { maxRows: 2 });

    expect(sut.errors).toEqual([]);
    expect(sut.leads.map((lead) => lead.line)).toEqual([6, 9]);
  });

  it.each([
    ['Name,LinkedIn,Email', 'name'],
    ['FULL_NAME,profile-url,email address', 'full name / profile url'],
    ['full name,Linkedin_Url,E-Mail', 'snake and dashes'],
    [' fullname , PROFILEURL ,e-mail', 'padding and case'],
  ])('matches the header %j (%s)', (header) => {
    const sut = parseLeadCsv(`${header}\nAnn,https://www.linkedin.com/in/ann-a,ANN@example.com\n`);

    expect(sut.errors).toEqual([]);
    expect(sut.leads).toEqual([{ line: 2, lead: { name: 'Ann', linkedinUrl: url('ann-a'), email: 'ANN@example.com' } }]);
  });

  it('prefers the most specific alias and ignores unknown columns', () => {
    const text = 'url,company,linkedin url,name\nhttps://acme.example,Acme,https://www.linkedin.com/in/ann-a,Ann\n';

    expect(parseLeadCsv(text).leads).toEqual([{ line: 2, lead: { name: 'Ann', linkedinUrl: url('ann-a'), email: null } }]);
  });

  it('combines first and last name columns when there is no name column', () => {
    const text = 'First Name,Last Name,LinkedIn\nAnn,Smith,https://www.linkedin.com/in/ann-a\nBob,,https://www.linkedin.com/in/bob-b\n';

    expect(parseLeadCsv(text).leads.map(({ lead }) => lead.name)).toEqual(['Ann Smith', 'Bob']);
  });

  it.each([
    ['email,linkedin', 'missing required column: name'],
    ['name,email', 'missing required column: linkedinUrl'],
    ['company,email', 'missing required columns: name, linkedinUrl'],
  ])('returns one error and no leads for the header %j', (header, message) => {
    const sut = parseLeadCsv(`${header}\nAnn,https://www.linkedin.com/in/ann-a\n`);

    expect(sut).toEqual({ leads: [], errors: [{ line: 1, field: null, message }] });
  });

  it('reports an empty file at line 1', () => {
    expect(parseLeadCsv('\uFEFF\n \r\n')).toEqual({
      leads: [],
      errors: [{ line: 1, field: null, message: expect.stringMatching(/empty/) }],
    });
  });

  it('refuses a file with an unterminated quote, naming the line where its row starts', () => {
    const text =
      'name,url\nAnn,https://www.linkedin.com/in/ann-a\n"Bob,https://www.linkedin.com/in/bob-b\nCarol,https://www.linkedin.com/in/carol-c\n';

    expect(() => parseLeadCsv(text)).toThrow(
      expect.objectContaining({ constructor: MalformedCsvError, line: 3, message: expect.stringMatching(/^line 3: .*never closed/) }),
    );
  });

  it('reports too many fields but accepts a short row', () => {
    const text = 'name,url,email\nAnn,https://www.linkedin.com/in/ann-a\nBob,https://www.linkedin.com/in/bob-b,,\n';

    const sut = parseLeadCsv(text);

    expect(sut.leads.map((lead) => lead.line)).toEqual([2]);
    expect(sut.errors).toEqual([{ line: 3, field: null, message: 'the row has 4 fields but the header has 3' }]);
  });

  it('stops after maxRows data rows, invalid ones included, with one error at the first row beyond', () => {
    const text =
      'name,url\nAnn,https://www.linkedin.com/in/ann-a\n\nbad,row\nBob,https://www.linkedin.com/in/bob-b\nCarol,https://www.linkedin.com/in/carol-c\n';

    const sut = parseLeadCsv(text, { maxRows: 2 });

    expect(sut.leads.map((lead) => lead.line)).toEqual([2]);
    expect(sut.errors).toEqual([
      expect.objectContaining({ line: 4, field: 'linkedinUrl' }),
      { line: 5, field: null, message: 'the file has more than 2 rows; import at most 2 at a time' },
    ]);
  });

  it(`allows ${LEAD_CSV_DEFAULT_MAX_ROWS} rows by default`, () => {
    const rows = (count: number) =>
      ['name,url', ...Array.from({ length: count }, (_, i) => `P${i},https://www.linkedin.com/in/person-${i}`)].join('\n');

    expect(parseLeadCsv(rows(LEAD_CSV_DEFAULT_MAX_ROWS)).errors).toEqual([]);
    expect(parseLeadCsv(rows(LEAD_CSV_DEFAULT_MAX_ROWS + 1)).errors).toEqual([
      expect.objectContaining({ line: LEAD_CSV_DEFAULT_MAX_ROWS + 2 }),
    ]);
  });

  it('throws only for broken quotes, and reports only line numbers that exist in the file', () => {
    const csvish = fc.string({
      unit: fc.constantFrom('a', 'name', 'url', 'https://www.linkedin.com/in/abc', ',', '"', '\r', '\n', ' ', '\uFEFF', '@'),
    });
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), csvish), fc.integer({ min: 0, max: 5 }), (text, maxRows) => {
        const lines = physicalLineCount(text);
        let parsed: ReturnType<typeof parseLeadCsv>;
        try {
          parsed = parseLeadCsv(text, { maxRows });
        } catch (error) {
          expect(error).toBeInstanceOf(MalformedCsvError);
          expect((error as MalformedCsvError).line).toBeLessThanOrEqual(lines);
          return;
        }
        for (const { line } of [...parsed.leads, ...parsed.errors]) {
          expect(line).toBeGreaterThanOrEqual(1);
          expect(line).toBeLessThanOrEqual(lines);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
