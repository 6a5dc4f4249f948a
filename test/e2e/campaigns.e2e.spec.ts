import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { signUpAndIn } from '../support/accounts';
import { campaignApi, type CampaignBody, profile } from '../support/campaigns';
import { useTestApp } from '../support/test-app';

describe('campaigns', () => {
  const sut = useTestApp();
  const ada = sut.user();
  const eve = sut.user();

  const { campaigns, create, importJson, importCsv, sql, allTasks } = campaignApi(sut);

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
});
