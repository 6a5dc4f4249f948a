import request from 'supertest';
import { campaignApi, profile } from '../support/campaigns';
import { useTestApp } from '../support/test-app';

/**
 * 100 data rows (lines 2–101) of which 7 are bad, one way each. Rows with an even index
 * have an email, so they get three tasks, the others two.
 */
function leadsCsv(): { text: string; badLines: number[]; tasks: number } {
  const rows: string[] = [];
  const bad: Record<number, string> = {
    4: 'Bad Url,https://example.com/someone,',
    17: ',https://www.linkedin.com/in/no-name-17/,',
    33: 'Bad Email,https://www.linkedin.com/in/bad-email-33/,not-an-email',
    50: 'Extra,https://www.linkedin.com/in/extra-50/,x@example.com,surplus',
    61: 'Repeat,https://www.linkedin.com/in/lead-3/,',
    78: 'Company,https://www.linkedin.com/company/acme/,',
    99: `${'N'.repeat(201)},https://www.linkedin.com/in/long-name-99/,`,
  };
  let tasks = 0;
  for (let i = 0; i < 100; i++) {
    if (bad[i]) {
      rows.push(bad[i]);
      continue;
    }
    const email = i % 2 === 0 ? `lead${i}@example.com` : '';
    // A quoted name with a comma: the parser must not split it.
    const name = i === 7 ? '"Lovelace, Ada"' : `Lead ${i}`;
    rows.push(`${name},${profile(`lead-${i}`)},${email}`);
    tasks += email ? 3 : 2;
  }
  const badLines = Object.keys(bad).map((index) => Number(index) + 2);
  return { text: ['name,linkedinUrl,email', ...rows].join('\r\n') + '\r\n', badLines, tasks };
}

describe('leads imported into a campaign', () => {
  const sut = useTestApp();
  const ada = sut.user();

  const { campaigns, create, importJson, importCsv, allTasks } = campaignApi(sut);

  it('imports leads from JSON with their tasks, and skips the profiles it already has', async () => {
    const campaign = await create(ada);
    const first = await importJson(ada, campaign.id, [
      { name: 'Ada Lovelace', linkedinUrl: 'https://linkedin.com/in/Ada-Lovelace', email: 'Ada@Example.com' },
      { name: 'Alan Turing', linkedinUrl: profile('alan-turing') },
      { name: 'Grace Hopper', linkedinUrl: profile('grace-hopper'), email: null },
    ]);
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ imported: 3, duplicates: [], errors: [] });

    const tasks = await allTasks(ada, campaign.id);
    expect(tasks.map((t) => [t.leadLinkedinUrl, t.type, t.step, t.status])).toEqual(
      expect.arrayContaining([
        [profile('ada-lovelace'), 'ScrapeProfile', 1, 'Pending'],
        [profile('ada-lovelace'), 'SendLinkedInMessage', 2, 'Pending'],
        [profile('ada-lovelace'), 'SendEmail', 3, 'Pending'],
        [profile('alan-turing'), 'ScrapeProfile', 1, 'Pending'],
        [profile('alan-turing'), 'SendLinkedInMessage', 2, 'Pending'],
      ]),
    );
    expect(tasks).toHaveLength(7);
    expect(tasks[0]).toEqual({
      id: expect.any(String),
      leadId: expect.any(String),
      leadName: expect.any(String),
      leadLinkedinUrl: expect.any(String),
      type: 'ScrapeProfile',
      step: 1,
      status: 'Pending',
      attempts: 0,
      nextRunAt: expect.any(String),
      output: null,
      sent: null,
      lastError: null,
      createdAt: expect.any(String),
      completedAt: null,
    });

    const again = await importJson(ada, campaign.id, [
      { name: 'Ada again', linkedinUrl: profile('ada-lovelace') },
      { name: 'Edsger Dijkstra', linkedinUrl: profile('edsger') },
      { name: 'Edsger twice', linkedinUrl: 'https://www.linkedin.com/in/EDSGER' },
    ]);
    expect(again.status).toBe(201);
    expect(again.body).toEqual({
      imported: 1,
      duplicates: [
        { line: null, linkedinUrl: profile('ada-lovelace') },
        { line: null, linkedinUrl: profile('edsger') },
      ],
      errors: [],
    });
    expect(await allTasks(ada, campaign.id)).toHaveLength(9);
    const read = await request(sut.http)
      .get(`${campaigns(ada)}/${campaign.id}`)
      .set(ada.auth)
      .expect(200);
    expect(read.body).toMatchObject({ leads: 4, tasks: { Pending: 9 } });
  });

  it.each([
    [
      'an invalid lead, naming it',
      [
        { name: 'A', linkedinUrl: profile('aaa') },
        { name: 'B', linkedinUrl: 'https://example.com/b' },
      ],
      'OUTREACH.INVALID_LEAD',
      /leads\[1\]: linkedinUrl must look like/,
    ],
    [
      'a lead with a bad email',
      [{ name: 'A', linkedinUrl: profile('aaa'), email: 'nope' }],
      'OUTREACH.INVALID_LEAD',
      /leads\[0\]: email must be a valid email/,
    ],
    ['a lead with no name', [{ linkedinUrl: profile('aaa') }], 'OUTREACH.INVALID_LEAD', /leads\[0\]: name must be 1 to 200 characters/],
    [
      'a lead with an unknown field',
      [{ name: 'A', linkedinUrl: profile('aaa'), phone: '1' }],
      'VALIDATION.FAILED',
      /leads\.0\.phone: unknown field/,
    ],
    ['an empty list', [], 'VALIDATION.FAILED', /leads must contain at least 1 elements/],
    // As short as leads get, so that 1001 of them fit in the 64 KB a JSON body may have.
    [
      'more than 1000 leads',
      Array.from({ length: 1001 }, (_, i) => ({ name: 'L', linkedinUrl: `https://linkedin.com/in/${i}xx` })),
      'VALIDATION.FAILED',
      /leads must contain no more than 1000 elements/,
    ],
    ['leads that are not a list', 'everyone', 'VALIDATION.FAILED', /leads must be an array/],
  ])('refuses JSON with %s, importing nothing', async (_, leads, code, message) => {
    const campaign = await create(ada);
    const res = await importJson(ada, campaign.id, leads);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code, message: expect.stringMatching(message) });
    expect(await allTasks(ada, campaign.id)).toEqual([]);
  });

  it('imports a CSV of 100 rows with 7 bad ones: 93 leads with their tasks, the 7 reported by line', async () => {
    const campaign = await create(ada);
    const csv = leadsCsv();
    const res = await importCsv(ada, campaign.id, csv.text);
    expect(res.status).toBe(201);
    expect(res.body.imported).toBe(93);
    expect(res.body.duplicates).toEqual([]);
    expect(res.body.errors.map((e: { line: number }) => e.line)).toEqual(csv.badLines);
    expect(res.body.errors).toEqual([
      { line: 6, field: 'linkedinUrl', message: expect.stringMatching(/linkedinUrl must look like/) },
      { line: 19, field: 'name', message: expect.stringMatching(/name must be 1 to 200/) },
      { line: 35, field: 'email', message: expect.stringMatching(/email must be a valid email/) },
      { line: 52, field: null, message: 'the row has 4 fields but the header has 3' },
      { line: 63, field: 'linkedinUrl', message: 'duplicate of line 5' },
      { line: 80, field: 'linkedinUrl', message: expect.stringMatching(/linkedinUrl must look like/) },
      { line: 101, field: 'name', message: expect.stringMatching(/name must be 1 to 200/) },
    ]);

    const tasks = await allTasks(ada, campaign.id);
    expect(tasks).toHaveLength(csv.tasks);
    expect(new Set(tasks.map((t) => t.leadLinkedinUrl)).size).toBe(93);
    expect(tasks.filter((t) => t.type === 'ScrapeProfile')).toHaveLength(93);
    expect(tasks.filter((t) => t.type === 'SendEmail')).toHaveLength(csv.tasks - 2 * 93);
    expect(tasks.find((t) => t.leadLinkedinUrl === profile('lead-7'))?.leadName).toBe('Lovelace, Ada');
    // Each lead's tasks come together, in step order.
    for (let i = 0; i < tasks.length; i++) {
      if (tasks[i].step > 1) expect(tasks[i - 1]).toMatchObject({ leadLinkedinUrl: tasks[i].leadLinkedinUrl, step: tasks[i].step - 1 });
    }
    const read = await request(sut.http)
      .get(`${campaigns(ada)}/${campaign.id}`)
      .set(ada.auth)
      .expect(200);
    expect(read.body).toMatchObject({ leads: 93, tasks: { Pending: csv.tasks, InProgress: 0, Completed: 0 } });

    const again = await importCsv(ada, campaign.id, csv.text);
    expect(again.status).toBe(201);
    expect(again.body.imported).toBe(0);
    expect(again.body.duplicates).toHaveLength(93);
    expect(again.body.duplicates[0]).toEqual({ line: 2, linkedinUrl: profile('lead-0') });
    expect(again.body.errors).toHaveLength(7);
    expect(await allTasks(ada, campaign.id)).toHaveLength(csv.tasks);
  });

  it('imports a semicolon CSV with a BOM and a quoted newline, and a tab one; refuses broken quotes with 400 naming the line', async () => {
    const campaign = await create(ada);
    const semicolon =
      '\uFEFFName;LinkedIn URL;E-mail\r\n' +
      `"Lovelace; Ada";${profile('semi-ada')};ada@example.com\r\n` +
      `"Alan\r\nTuring";${profile('semi-alan')};\r\n` +
      `Grace "Amazing" Hopper;${profile('semi-grace')};\r\n` +
      `Bad;https://example.com/x;\r\n`;
    const res = await importCsv(ada, campaign.id, semicolon);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      imported: 3,
      duplicates: [],
      errors: [{ line: 6, field: 'linkedinUrl', message: expect.stringMatching(/linkedinUrl must look like/) }],
    });
    const names = new Map((await allTasks(ada, campaign.id)).map((task) => [task.leadLinkedinUrl, task.leadName]));
    expect(names.get(profile('semi-ada'))).toBe('Lovelace; Ada');
    expect(names.get(profile('semi-alan'))).toBe('Alan Turing');
    expect(names.get(profile('semi-grace'))).toBe('Grace "Amazing" Hopper');

    const tab = await importCsv(ada, campaign.id, `name\tlinkedinUrl\n"Smith, Ann"\t${profile('tab-ann')}\n`);
    expect(tab.status).toBe(201);
    expect(tab.body).toEqual({ imported: 1, duplicates: [], errors: [] });

    const broken = await importCsv(
      ada,
      campaign.id,
      `name,linkedinUrl\nBob,${profile('bob-b')}\n"Carol,${profile('carol-c')}\nDan,${profile('dan-d')}\n`,
    );
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({ code: 'OUTREACH.MALFORMED_CSV', message: expect.stringMatching(/^line 3: .*never closed/) });
    expect(new Set((await allTasks(ada, campaign.id)).map((task) => task.leadLinkedinUrl)).size).toBe(4);
  });

  it('reports a CSV without the needed columns, refuses one over 2 MB (413) and other content types (415)', async () => {
    const campaign = await create(ada);
    const noUrl = await importCsv(ada, campaign.id, 'name,email\nAda,ada@example.com\n');
    expect(noUrl.status).toBe(201);
    expect(noUrl.body).toEqual({
      imported: 0,
      duplicates: [],
      errors: [{ line: 1, field: null, message: 'missing required column: linkedinUrl' }],
    });

    const empty = await importCsv(ada, campaign.id, '');
    expect(empty.status).toBe(201);
    expect(empty.body.errors).toEqual([{ line: 1, field: null, message: expect.stringMatching(/the file is empty/) }]);
    const noBody = await request(sut.http)
      .post(`${campaigns(ada)}/${campaign.id}/leads`)
      .set(ada.auth)
      .set('Content-Type', 'application/json');
    expect(noBody.status).toBe(400);
    expect(noBody.body).toMatchObject({ code: 'VALIDATION.FAILED', message: expect.stringMatching(/leads must be an array/) });

    const row = `Someone,${profile('someone-with-a-long-profile-name')},someone@example.com\n`;
    const huge = 'name,linkedinUrl,email\n' + row.repeat(Math.ceil((2 * 1024 * 1024) / row.length) + 1);
    const tooBig = await importCsv(ada, campaign.id, huge);
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toMatchObject({ code: 'HTTP.PAYLOAD_TOO_LARGE' });

    const plain = await request(sut.http)
      .post(`${campaigns(ada)}/${campaign.id}/leads`)
      .set(ada.auth)
      .set('Content-Type', 'text/plain')
      .send('Ada,https://www.linkedin.com/in/ada/');
    expect(plain.status).toBe(415);
    expect(plain.body).toMatchObject({ code: 'HTTP.UNSUPPORTED_MEDIA_TYPE', message: expect.stringMatching(/text\/csv/) });
    expect(await allTasks(ada, campaign.id)).toEqual([]);
  });
});
