import { MalformedCsvError } from '../../../src/domain/outreach/lead-csv';
import { PapaparseCsvReader } from '../../../src/infrastructure/outreach/papaparse-csv-reader';

describe(PapaparseCsvReader.name, () => {
  const sut = new PapaparseCsvReader();

  it('reads a semicolon file with a BOM, a quoted newline, a quoted semicolon and doubled quotes', () => {
    const text = '\uFEFFname;linkedinUrl\r\n"Smith; Ann";a\r\n"Bob\r\n""The Builder""";b\r\n\r\nCarol;c\r\n';

    expect(sut.records(text)).toEqual([
      { line: 1, fields: ['name', 'linkedinUrl'] },
      { line: 2, fields: ['Smith; Ann', 'a'] },
      { line: 3, fields: ['Bob\n"The Builder"', 'b'] },
      { line: 5, fields: [''] },
      { line: 6, fields: ['Carol', 'c'] },
      { line: 7, fields: [''] },
    ]);
  });

  it.each([
    ['tab', '\t', 'Smith, Ann; Jr'],
    ['pipe', '|', 'Smith, Ann; Jr'],
    ['comma', ',', 'Ann; Jr'],
  ])('finds a %s delimiter from the first rows', (_, delimiter, name) => {
    const text = ['name', 'url', 'email'].join(delimiter) + '\n' + [name, 'a', ''].join(delimiter) + '\n';

    expect(sut.records(text).slice(0, 2)).toEqual([
      { line: 1, fields: ['name', 'url', 'email'] },
      { line: 2, fields: [name, 'a', ''] },
    ]);
  });

  it('counts CR, LF and CRLF line ends alike, mixed in one file', () => {
    expect(sut.records('a,b\r1,2\n3,4\r\n"5\r6",7').map((record) => record.line)).toEqual([1, 2, 3, 4]);
  });

  it.each([
    [
      'a quoted field never closed',
      'name,url\nAnn,a\nBob,b\n"Carol,c\nDan,d\n',
      4,
      /line 4: a quoted field starting in this row is never closed/,
    ],
    ['text after a closing quote', 'name;url\nAnn;a\n"Bo"b;b\nCarol;c\n', 3, /line 3: a quoted field has text after its closing quote/],
  ])('refuses %s, naming the line', (_, text, line, message) => {
    let thrown: unknown;
    try {
      sut.records(text);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(MalformedCsvError);
    expect(thrown).toMatchObject({ line, code: 'OUTREACH.MALFORMED_CSV', message: expect.stringMatching(message) });
  });
});
