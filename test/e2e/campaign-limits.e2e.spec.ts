import request from 'supertest';
import { DataSource } from 'typeorm';
import { FakeSmsChannel } from '../fakes/outreach/sms-channel';
import { useTestApp } from '../support/test-app';

/** A campaign's limits as rows: a request's `limits` for any kind a channel performs; a read names each kind in dailyLimits and weeklyLimits. */
describe('campaign limits as rows', () => {
  // A third channel, registered in test code alone: its kind can be limited like the built-in ones.
  const sut = useTestApp({ channels: [new FakeSmsChannel()] });
  const ada = sut.user();
  const campaigns = () => `/api/${ada.userId}/campaigns`;

  it("sets limits of a channel added later, answers them under the kind's own key, and stores one row per kind and window", async () => {
    const created = await request(sut.http)
      .post(campaigns())
      .set(ada.auth)
      .send({
        name: 'Texts',
        dailyLimits: { email: 7 },
        limits: [
          { kind: 'sms', window: 'day', max: 2 },
          { kind: 'sms', window: 'week', max: 9 },
          { kind: 'linkedin_message', window: 'week', max: 30 },
        ],
      })
      .expect(201);
    expect(created.body).toMatchObject({
      dailyLimits: { profile_lookup: 50, linkedin_message: 50, email: 7, sms: 2 },
      weeklyLimits: { profile_lookup: null, linkedin_message: 30, email: null, sms: 9 },
    });
    const id = (created.body as { id: string }).id;
    const stored = () =>
      sut.app.get(DataSource).query(`SELECT kind, "window", max FROM campaign_limits WHERE campaign_id = $1 ORDER BY kind, "window"`, [id]);
    expect(await stored()).toEqual([
      { kind: 'email', window: 'day', max: 7 },
      { kind: 'linkedin_message', window: 'day', max: 50 },
      { kind: 'linkedin_message', window: 'week', max: 30 },
      { kind: 'profile_lookup', window: 'day', max: 50 },
      { kind: 'sms', window: 'day', max: 2 },
      { kind: 'sms', window: 'week', max: 9 },
    ]);

    // null removes a row; a kind or window not named is left as it is.
    const changed = await request(sut.http)
      .patch(`${campaigns()}/${id}`)
      .set(ada.auth)
      .send({ limits: [{ kind: 'sms', window: 'week', max: null }] })
      .expect(200);
    expect(changed.body.dailyLimits).toEqual({ profile_lookup: 50, linkedin_message: 50, email: 7, sms: 2 });
    expect(changed.body.weeklyLimits).toEqual({ profile_lookup: null, linkedin_message: 30, email: null });
    const weekly = await request(sut.http)
      .patch(`${campaigns()}/${id}`)
      .set(ada.auth)
      .send({ weeklyLimits: { email: 3 } })
      .expect(200);
    expect(weekly.body.dailyLimits).toEqual(changed.body.dailyLimits);
    expect(weekly.body.weeklyLimits).toEqual({ profile_lookup: null, linkedin_message: 30, email: 3 });

    const read = await request(sut.http).get(`${campaigns()}/${id}`).set(ada.auth).expect(200);
    expect(read.body).toMatchObject({ dailyLimits: weekly.body.dailyLimits, weeklyLimits: weekly.body.weeklyLimits });
    expect(await stored()).toEqual([
      { kind: 'email', window: 'day', max: 7 },
      { kind: 'email', window: 'week', max: 3 },
      { kind: 'linkedin_message', window: 'day', max: 50 },
      { kind: 'linkedin_message', window: 'week', max: 30 },
      { kind: 'profile_lookup', window: 'day', max: 50 },
      { kind: 'sms', window: 'day', max: 2 },
    ]);
  });

  it.each([
    [
      'a kind no channel performs',
      { kind: 'fax', window: 'day', max: 1 },
      'limits[0].kind',
      /limits\[0\]\.kind must be one of profile_lookup, linkedin_message, email, sms/,
    ],
    ['an unknown window', { kind: 'sms', window: 'month', max: 1 }, 'limits[0].window', /limits\[0\]\.window must be one of day, week/],
    [
      'a daily max past the maximum',
      { kind: 'sms', window: 'day', max: 10_001 },
      'limits[0].max',
      /limits\[0\]\.max must be a whole number from 0 to 10000/,
    ],
    ['a fractional max', { kind: 'email', window: 'week', max: 1.5 }, 'limits[0].max', /limits\[0\]\.max must be a whole number/],
    ['an unknown field', { kind: 'sms', window: 'day', max: 1, scope: 'owner' }, 'limits[0].scope', /limits\[0\]\.scope is not accepted/],
  ])('refuses %s with 400 naming the field', async (_, limit, field, message) => {
    const res = await request(sut.http)
      .post(campaigns())
      .set(ada.auth)
      .send({ name: 'Bad', limits: [limit] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, message: expect.stringMatching(message) });
    expect(JSON.stringify(res.body)).toContain(field);
  });

  it('refuses limits that are not a list', async () => {
    const res = await request(sut.http)
      .post(campaigns())
      .set(ada.auth)
      .send({ name: 'Bad', limits: { sms: 1 } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, message: expect.stringMatching(/limits must be a list/) });
  });
});
