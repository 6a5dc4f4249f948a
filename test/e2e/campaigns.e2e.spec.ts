import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { useTestApp } from '../support/test-app';

interface CampaignBody {
  id: string;
  name: string;
  status: string;
  dailyLimits: Record<string, number>;
  weeklyLimits: Record<string, number | null>;
}

interface TaskBody {
  id: string;
  leadName: string;
  leadLinkedinUrl: string;
  type: string;
  step: number;
  status: string;
}

const profile = (slug: string) => `https://www.linkedin.com/in/${slug}/`;

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

describe('campaigns, leads and the do-not-contact list', () => {
  const sut = useTestApp();
  const ada = sut.user();
  const eve = sut.user();

  const campaigns = (user: SignedInUser) => `/api/${user.userId}/campaigns`;
  const create = async (user: SignedInUser, body: object = { name: 'Outreach' }): Promise<CampaignBody> =>
    (await request(sut.http).post(campaigns(user)).set(user.auth).send(body).expect(201)).body;
  const importJson = (user: SignedInUser, campaignId: string, leads: unknown) =>
    request(sut.http)
      .post(`${campaigns(user)}/${campaignId}/leads`)
      .set(user.auth)
      .send({ leads });
  const importCsv = (user: SignedInUser, campaignId: string, text: string) =>
    request(sut.http)
      .post(`${campaigns(user)}/${campaignId}/leads`)
      .set(user.auth)
      .set('Content-Type', 'text/csv')
      .send(text);
  const sql = <T>(query: string, parameters: unknown[]) => sut.app.get(DataSource).query<T>(query, parameters);

  async function allTasks(user: SignedInUser, campaignId: string): Promise<TaskBody[]> {
    const tasks: TaskBody[] = [];
    let cursor: string | null = null;
    do {
      const res = await request(sut.http)
        .get(`${campaigns(user)}/${campaignId}/tasks`)
        .query({ limit: 100, ...(cursor ? { cursor } : {}) })
        .set(user.auth)
        .expect(200);
      tasks.push(...(res.body.items as TaskBody[]));
      cursor = res.body.nextCursor as string | null;
    } while (cursor);
    return tasks;
  }

  it('creates, lists, reads, changes and deletes campaigns', async () => {
    const user = await signUpAndIn(sut.http);
    const created = await request(sut.http).post(campaigns(user)).set(user.auth).send({ name: '  Q3 founders  ' }).expect(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'Q3 founders',
      status: 'draft',
      dailyLimits: { profile_lookup: 50, linkedin_message: 50, email: 50 },
      weeklyLimits: { profile_lookup: null, linkedin_message: null, email: null },
      approvalMode: 'none',
      approvalFirstN: 3,
      brief: { offer: null, tone: null, callToAction: null, senderName: null, signature: null },
      templates: { linkedinMessage: null, emailSubject: null, emailBody: null },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      completedAt: null,
    });
    const second = await create(user, { name: 'EU', dailyLimits: { email: 10 } });
    expect(second.dailyLimits).toEqual({ profile_lookup: 50, linkedin_message: 50, email: 10 });
    const third = await create(user, { name: 'US' });

    const first = await request(sut.http)
      .get(`${campaigns(user)}?limit=2`)
      .set(user.auth)
      .expect(200);
    expect(first.body.items.map((c: CampaignBody) => c.id)).toEqual([third.id, second.id]);
    const rest = await request(sut.http)
      .get(`${campaigns(user)}?limit=2&cursor=${first.body.nextCursor}`)
      .set(user.auth)
      .expect(200);
    expect(rest.body).toEqual({ items: [created.body], nextCursor: null });

    const patched = await request(sut.http)
      .patch(`${campaigns(user)}/${second.id}`)
      .set(user.auth)
      .send({ name: 'EU (north)', dailyLimits: { linkedin_message: 20 } })
      .expect(200);
    expect(patched.body).toMatchObject({ name: 'EU (north)', dailyLimits: { profile_lookup: 50, linkedin_message: 20, email: 10 } });
    // Weekly limits: none unless set; a PATCH changes the kinds it names, and null removes one.
    const weekly = await create(user, { name: 'Weekly', weeklyLimits: { linkedin_message: 30, email: 200 } });
    expect(weekly.weeklyLimits).toEqual({ profile_lookup: null, linkedin_message: 30, email: 200 });
    const reweekly = await request(sut.http)
      .patch(`${campaigns(user)}/${weekly.id}`)
      .set(user.auth)
      .send({ weeklyLimits: { profile_lookup: 0, email: null } })
      .expect(200);
    expect(reweekly.body.weeklyLimits).toEqual({ profile_lookup: 0, linkedin_message: 30, email: null });
    const read = await request(sut.http)
      .get(`${campaigns(user)}/${second.id}`)
      .set(user.auth)
      .expect(200);
    expect(read.body).toMatchObject({
      ...patched.body,
      leads: 0,
      tasks: { Pending: 0, InProgress: 0, AwaitingReview: 0, Completed: 0, Failed: 0, Cancelled: 0 },
    });

    await request(sut.http)
      .delete(`${campaigns(user)}/${second.id}`)
      .set(user.auth)
      .expect(204);
    const gone = await request(sut.http)
      .get(`${campaigns(user)}/${second.id}`)
      .set(user.auth)
      .expect(404);
    expect(gone.body).toMatchObject({ statusCode: 404, code: 'OUTREACH.CAMPAIGN_NOT_FOUND' });
    await request(sut.http)
      .delete(`${campaigns(user)}/${second.id}`)
      .set(user.auth)
      .expect(404);
  });

  it("hides another user's campaigns: 404 on one's own path, 403 on theirs, 401 with no token", async () => {
    const campaign = await create(ada, { name: 'Secret' });
    const mine = `${campaigns(eve)}/${campaign.id}`;
    const attempts = [
      request(sut.http).get(mine).set(eve.auth),
      request(sut.http).patch(mine).set(eve.auth).send({ name: 'Mine now' }),
      request(sut.http).delete(mine).set(eve.auth),
      request(sut.http).post(`${mine}/start`).set(eve.auth),
      request(sut.http).post(`${mine}/pause`).set(eve.auth),
      request(sut.http)
        .post(`${mine}/leads`)
        .set(eve.auth)
        .send({ leads: [{ name: 'X', linkedinUrl: profile('xxx') }] }),
      request(sut.http).get(`${mine}/tasks`).set(eve.auth),
      request(sut.http)
        .get(`${campaigns(eve)}/${randomUUID()}`)
        .set(eve.auth),
    ];
    for (const res of await Promise.all(attempts)) {
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 404, code: 'OUTREACH.CAMPAIGN_NOT_FOUND' });
    }
    const list = await request(sut.http).get(campaigns(eve)).set(eve.auth).expect(200);
    expect(list.body.items.map((c: CampaignBody) => c.id)).not.toContain(campaign.id);

    const theirs = await request(sut.http)
      .get(`${campaigns(ada)}/${campaign.id}`)
      .set(eve.auth);
    expect(theirs.status).toBe(403);
    expect(theirs.body).toMatchObject({ code: 'AUTH.FORBIDDEN' });
    const anonymous = await request(sut.http).get(`${campaigns(ada)}/${campaign.id}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ code: 'AUTH.UNAUTHENTICATED' });
    await request(sut.http).get(`/api/${ada.userId}/do-not-contact`).set(eve.auth).expect(403);
    await request(sut.http).get(`/api/${ada.userId}/do-not-contact`).expect(401);

    await request(sut.http)
      .get(`${campaigns(ada)}/${campaign.id}`)
      .set(ada.auth)
      .expect(200);
  });

  it.each([
    ['no name', 'post', {}, /name must be a string/],
    ['a blank name', 'post', { name: '   ' }, /name must not be empty/],
    ['a name too long', 'post', { name: 'x'.repeat(121) }, /name must be shorter than or equal to 120 characters/],
    [
      'a negative email limit',
      'post',
      { name: 'a', dailyLimits: { email: -1 } },
      /dailyLimits\.email must be a whole number from 0 to 10000/,
    ],
    [
      'a fractional look-up limit',
      'post',
      { name: 'a', dailyLimits: { profile_lookup: 1.5 } },
      /dailyLimits\.profile_lookup must be a whole number/,
    ],
    [
      'a limit as a string',
      'post',
      { name: 'a', dailyLimits: { linkedin_message: '5' } },
      /dailyLimits\.linkedin_message must be a whole number/,
    ],
    ['a limit past the maximum', 'patch', { dailyLimits: { email: 10_001 } }, /dailyLimits\.email must be a whole number from 0 to 10000/],
    // An optional field may be left out, never null: the DTO refuses it like any other wrong type.
    ['a null limit', 'patch', { dailyLimits: { email: null } }, /dailyLimits\.email must be a whole number/],
    ['an unknown kind', 'post', { name: 'a', dailyLimits: { sms: 5 } }, /dailyLimits\.sms: unknown field, not allowed/],
    ['limits that are not an object', 'post', { name: 'a', dailyLimits: 5 }, /dailyLimits must be an object/],
    ['an unknown field', 'post', { name: 'a', status: 'active' }, /status: unknown field, not allowed/],
    [
      'a weekly limit past the maximum',
      'patch',
      { weeklyLimits: { email: 70_001 } },
      /weeklyLimits\.email must be a whole number from 0 to 70000, or null for none/,
    ],
    ['a fractional weekly limit', 'post', { name: 'a', weeklyLimits: { linkedin_message: 2.5 } }, /weeklyLimits\.linkedin_message must be/],
    ['an unknown weekly kind', 'post', { name: 'a', weeklyLimits: { sms: 5 } }, /weeklyLimits\.sms: unknown field, not allowed/],
    ['weekly limits that are not an object', 'patch', { weeklyLimits: 7 }, /weeklyLimits must be an object/],
    ['an empty change', 'patch', {}, /at least one of name, dailyLimits, weeklyLimits/],
    ['a blank new name', 'patch', { name: '' }, /name must not be empty/],
  ] as [string, 'post' | 'patch', object, RegExp, string?][])(
    'refuses %s with 400 naming the field',
    async (_, method, body, message, code = 'VALIDATION.FAILED') => {
      const campaign = await create(ada);
      const res =
        method === 'post'
          ? await request(sut.http).post(campaigns(ada)).set(ada.auth).send(body)
          : await request(sut.http)
              .patch(`${campaigns(ada)}/${campaign.id}`)
              .set(ada.auth)
              .send(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, code, message: expect.stringMatching(message) });
    },
  );

  it('refuses bad paths, page sizes and cursors with 400', async () => {
    const campaign = await create(ada);
    const cases: [string, RegExp][] = [
      [`${campaigns(ada)}/not-a-uuid`, /campaignId must be a UUID/],
      [`${campaigns(ada)}?limit=101`, /limit must not be greater than 100/],
      [`${campaigns(ada)}/${campaign.id}/tasks?limit=0`, /limit must not be less than 1/],
      [`${campaigns(ada)}?cursor=bm9wZQ`, /cursor is not one this API returned/],
      [`${campaigns(ada)}/${campaign.id}/tasks?cursor=WyJ4Il0`, /cursor is not one this API returned/],
    ];
    for (const [path, message] of cases) {
      const res = await request(sut.http).get(path).set(ada.auth);
      expect({ path, status: res.status, message: res.body.message }).toEqual({
        path,
        status: 400,
        message: expect.stringMatching(message),
      });
    }
  });

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

  it('starts and pauses a campaign, and refuses what its state forbids with 409', async () => {
    const campaign = await create(ada);
    const path = `${campaigns(ada)}/${campaign.id}`;
    const empty = await request(sut.http).post(`${path}/start`).set(ada.auth);
    expect(empty.status).toBe(409);
    expect(empty.body).toMatchObject({ code: 'OUTREACH.CAMPAIGN_STATE', message: expect.stringMatching(/no leads/) });
    expect((await request(sut.http).post(`${path}/pause`).set(ada.auth).expect(200)).body.status).toBe('draft');

    await importJson(ada, campaign.id, [{ name: 'Ada', linkedinUrl: profile('ada') }]).expect(201);
    const started = await request(sut.http).post(`${path}/start`).set(ada.auth).expect(200);
    expect(started.body).toMatchObject({ id: campaign.id, status: 'active' });
    await request(sut.http).post(`${path}/start`).set(ada.auth).expect(200);

    const active = await request(sut.http).delete(path).set(ada.auth);
    expect(active.status).toBe(409);
    expect(active.body).toMatchObject({ code: 'OUTREACH.CAMPAIGN_STATE', message: expect.stringMatching(/pause it/) });

    const paused = await request(sut.http).post(`${path}/pause`).set(ada.auth).expect(200);
    expect(paused.body.status).toBe('paused');
    expect((await request(sut.http).post(`${path}/pause`).set(ada.auth).expect(200)).body.status).toBe('paused');
    expect((await request(sut.http).post(`${path}/start`).set(ada.auth).expect(200)).body.status).toBe('active');

    await sql(`UPDATE campaigns SET status = 'completed', completed_at = now() WHERE id = $1`, [campaign.id]);
    const refused = await Promise.all([
      request(sut.http).post(`${path}/start`).set(ada.auth),
      request(sut.http).post(`${path}/pause`).set(ada.auth),
      request(sut.http).patch(path).set(ada.auth).send({ name: 'Again' }),
      importJson(ada, campaign.id, [{ name: 'Late', linkedinUrl: profile('late') }]),
      importCsv(ada, campaign.id, `name,linkedinUrl\nLate,${profile('late')}\n`),
    ]);
    for (const res of refused) {
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 409, code: 'OUTREACH.CAMPAIGN_STATE' });
    }
    expect(await allTasks(ada, campaign.id)).toHaveLength(2);
    await request(sut.http).delete(path).set(ada.auth).expect(204);
  });

  it("shows today's and the rolling week's usage against the campaign's and the owner's limits, and what remains", async () => {
    const user = await signUpAndIn(sut.http);
    const campaign = await create(user, { name: 'Usage', dailyLimits: { email: 120 }, weeklyLimits: { profile_lookup: 12 } });
    const fresh = await request(sut.http)
      .get(`${campaigns(user)}/${campaign.id}`)
      .set(user.auth)
      .expect(200);
    const today = new Date().toISOString().slice(0, 10);
    const day = (offset: number) => new Date(Date.parse(today) + offset * 86_400_000);
    const week = (used: number, limit: number | null, freesAt: Date | null = null) => ({
      used,
      limit,
      freesAt: freesAt?.toISOString() ?? null,
    });
    expect(fresh.body.usage).toEqual({
      day: today,
      resetsAt: day(1).toISOString(),
      weekFrom: day(-6).toISOString().slice(0, 10),
      kinds: {
        profile_lookup: {
          campaign: { used: 0, limit: 50, week: week(0, 12) },
          owner: { used: 0, limit: 100, week: week(0, 500) },
          remaining: 12,
        },
        linkedin_message: {
          campaign: { used: 0, limit: 50, week: week(0, null) },
          owner: { used: 0, limit: 100, week: week(0, 100) },
          remaining: 50,
        },
        email: {
          campaign: { used: 0, limit: 120, week: week(0, null) },
          owner: { used: 0, limit: 100, week: week(0, 500) },
          remaining: 100,
        },
      },
    });

    // Slots taken today: 10 look-ups by this campaign; 70 messages by the owner's campaigns. Before:
    // 2 look-ups 5 days ago (in the week) and 40 messages 4 days ago; 9 messages 7 days ago (out of it).
    await sql(
      `INSERT INTO quota_ledger (scope, scope_id, kind, day, used, "limit") VALUES
         ('campaign', $1, 'profile_lookup', $3, 10, 50), ('owner', $2, 'profile_lookup', $3, 10, 100),
         ('campaign', $1, 'profile_lookup', $4, 2, 50), ('owner', $2, 'profile_lookup', $4, 2, 100),
         ('owner', $2, 'linkedin_message', $3, 70, 100), ('owner', $2, 'linkedin_message', $5, 40, 100),
         ('owner', $2, 'linkedin_message', $6, 9, 100)`,
      [campaign.id, user.userId, today, ...[-5, -4, -7].map((offset) => day(offset).toISOString().slice(0, 10))],
    );
    const used = await request(sut.http)
      .get(`${campaigns(user)}/${campaign.id}`)
      .set(user.auth)
      .expect(200);
    expect(used.body.usage.kinds).toEqual({
      // The campaign's week is full: its oldest counted day (5 days ago) leaves it in 2 days.
      profile_lookup: {
        campaign: { used: 10, limit: 50, week: week(12, 12, day(2)) },
        owner: { used: 10, limit: 100, week: week(12, 500) },
        remaining: 0,
      },
      // The owner's week (110 of 100) drops under the limit once 4 days ago leaves it, in 3 days.
      linkedin_message: {
        campaign: { used: 0, limit: 50, week: week(0, null) },
        owner: { used: 70, limit: 100, week: week(110, 100, day(3)) },
        remaining: 0,
      },
      email: { campaign: { used: 0, limit: 120, week: week(0, null) }, owner: { used: 0, limit: 100, week: week(0, 500) }, remaining: 100 },
    });
  });

  describe('the do-not-contact list', () => {
    const list = (user: SignedInUser) => `/api/${user.userId}/do-not-contact`;

    it('adds (idempotently, in canonical form), lists newest first and removes entries', async () => {
      const user = await signUpAndIn(sut.http);
      const email = await request(sut.http).post(list(user)).set(user.auth).send({ value: ' Ada@Example.com ' }).expect(201);
      expect(email.body).toEqual({ id: expect.any(String), kind: 'email', value: 'ada@example.com', createdAt: expect.any(String) });
      const again = await request(sut.http).post(list(user)).set(user.auth).send({ value: 'ada@example.com' }).expect(201);
      expect(again.body).toEqual(email.body);
      const linkedin = await request(sut.http).post(list(user)).set(user.auth).send({ value: 'https://linkedin.com/in/Ada-L' }).expect(201);
      expect(linkedin.body).toMatchObject({ kind: 'linkedin', value: profile('ada-l') });

      const listed = await request(sut.http).get(list(user)).set(user.auth).expect(200);
      expect(listed.body).toEqual([linkedin.body, email.body]);
      expect((await request(sut.http).get(list(eve)).set(eve.auth).expect(200)).body).toEqual([]);

      const foreign = await request(sut.http)
        .delete(`${list(eve)}/${email.body.id}`)
        .set(eve.auth);
      expect(foreign.status).toBe(404);
      expect(foreign.body).toMatchObject({ code: 'OUTREACH.DO_NOT_CONTACT_NOT_FOUND' });
      await request(sut.http)
        .delete(`${list(user)}/${email.body.id}`)
        .set(user.auth)
        .expect(204);
      await request(sut.http)
        .delete(`${list(user)}/${email.body.id}`)
        .set(user.auth)
        .expect(404);
      expect((await request(sut.http).get(list(user)).set(user.auth).expect(200)).body).toEqual([linkedin.body]);
    });

    it.each([
      [
        'a value that is neither an email nor a profile',
        { value: 'ada' },
        'OUTREACH.INVALID_DO_NOT_CONTACT',
        /value must be an email address or a https:\/\/www\.linkedin\.com\/in\/<name>\/ URL/,
      ],
      [
        'a company page',
        { value: 'https://www.linkedin.com/company/acme/' },
        'OUTREACH.INVALID_DO_NOT_CONTACT',
        /value must be an email address/,
      ],
      ['a number', { value: 42 }, 'VALIDATION.FAILED', /value must be a string/],
      ['no value', {}, 'VALIDATION.FAILED', /value must be a string/],
    ])('refuses %s with 400', async (_, body, code, message) => {
      const res = await request(sut.http).post(list(ada)).set(ada.auth).send(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code, message: expect.stringMatching(message) });
    });

    it('refuses an entry id that is not a UUID', async () => {
      const res = await request(sut.http)
        .delete(`${list(ada)}/nope`)
        .set(ada.auth);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ message: 'entryId must be a UUID' });
    });
  });
});
