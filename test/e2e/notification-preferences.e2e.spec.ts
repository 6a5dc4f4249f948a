import request from 'supertest';
import { DataSource } from 'typeorm';
import { NOTIFICATION_EVENTS } from '../../src/domain/notifications/notification';
import { cyclesUntilIdle, leads } from '../support/outreach';
import { useTestApp } from '../support/test-app';

interface Listed {
  id: string;
  event: string;
  subject: Record<string, unknown>;
  facts: Record<string, unknown>;
  link: string;
  toAdmins: boolean;
  createdAt: string;
}

/**
 * A person's notifications over HTTP, on a server without SMTP_URL: the list of what they were
 * told, and which events reach them by email (stored, though nothing is mailed here, and
 * nothing fails for it).
 */
describe('notification preferences and list', () => {
  const sut = useTestApp();
  const member = sut.user();
  const admin = sut.user({ admin: true });
  const other = sut.user();

  const preferences = (user: typeof member) => `/api/${user.userId}/notifications/preferences`;
  const everyEventOn = (events: readonly string[]) => Object.fromEntries(events.map((event) => [event, true]));

  it('has every event that concerns the person on until they turn it off; only admins get policy.stored', async () => {
    const memberEvents = NOTIFICATION_EVENTS.filter((event) => event !== 'policy.stored');
    const mine = await request(sut.http).get(preferences(member)).set(member.auth).expect(200);
    expect(mine.body).toEqual({ email: everyEventOn(memberEvents), emailDelivered: false });
    const admins = await request(sut.http).get(preferences(admin)).set(admin.auth).expect(200);
    expect(admins.body).toEqual({ email: everyEventOn(NOTIFICATION_EVENTS), emailDelivered: false });

    const changed = await request(sut.http)
      .put(preferences(member))
      .set(member.auth)
      .send({ email: { 'draft.awaiting_review': false, 'campaign.finished': false } })
      .expect(200);
    expect(changed.body).toEqual({
      email: { ...everyEventOn(memberEvents), 'draft.awaiting_review': false, 'campaign.finished': false },
      emailDelivered: false,
    });
    // The events not named keep their choice.
    const again = await request(sut.http)
      .put(preferences(member))
      .set(member.auth)
      .send({ email: { 'campaign.finished': true } })
      .expect(200);
    expect(again.body).toEqual({ email: { ...everyEventOn(memberEvents), 'draft.awaiting_review': false }, emailDelivered: false });
    expect((await request(sut.http).get(preferences(member)).set(member.auth).expect(200)).body).toEqual(again.body);
  });

  it('refuses an unknown event, an unknown channel or a value that is not true or false with a 400 naming it, and changes nothing', async () => {
    const before = (await request(sut.http).get(preferences(other)).set(other.auth).expect(200)).body as unknown;
    const refused = [
      [{ email: { 'draft.nonsense': false } }, 'email.draft.nonsense'],
      [{ sms: { 'draft.expired': false } }, 'sms'],
      [{ email: { 'draft.expired': 'no' } }, 'email.draft.expired must be true or false'],
      [{ email: { 'draft.expired': null } }, 'email.draft.expired must be true or false'],
      [{ email: ['draft.expired'] }, 'email must be an object'],
      [{ email: null }, 'email must be an object'],
      [{}, 'email must be an object'],
    ] as const;
    for (const [body, field] of refused) {
      const res = await request(sut.http).put(preferences(other)).set(other.auth).send(body);
      expect({
        status: res.status,
        code: (res.body as { code: string }).code,
        named: (res.body as { message: string }).message.includes(field),
      }).toEqual({
        status: 400,
        code: 'VALIDATION.FAILED',
        named: true,
      });
    }
    expect((await request(sut.http).get(preferences(other)).set(other.auth).expect(200)).body).toEqual(before);
  });

  it("keeps one person's notifications and choices from another", async () => {
    for (const path of [preferences(member), `/api/${member.userId}/notifications`]) {
      await request(sut.http).get(path).set(other.auth).expect(403);
    }
    await request(sut.http)
      .put(preferences(member))
      .set(other.auth)
      .send({ email: { 'draft.expired': false } })
      .expect(403);
    await request(sut.http).get(preferences(member)).expect(401);
  });

  it("lists the person's notifications newest first, each with the console's page of its subject, a page at a time", async () => {
    const base = `/api/${other.userId}/campaigns`;
    const created = await request(sut.http).post(base).set(other.auth).send({ name: 'Listed', approvalMode: 'all' }).expect(201);
    const campaignId = (created.body as { id: string }).id;
    await request(sut.http)
      .post(`${base}/${campaignId}/leads`)
      .set(other.auth)
      .send({ leads: leads(3, 'notify-list') })
      .expect(201);
    await request(sut.http).post(`${base}/${campaignId}/start`).set(other.auth).expect(200);
    await cyclesUntilIdle(sut.http, other, campaignId);

    const first = await request(sut.http).get(`/api/${other.userId}/notifications?limit=2`).set(other.auth).expect(200);
    const page = first.body as { items: Listed[]; nextCursor: string | null };
    expect(page.items).toHaveLength(2);
    expect(page.nextCursor).toEqual(expect.any(String));
    const rest = await request(sut.http)
      .get(`/api/${other.userId}/notifications?limit=2&cursor=${page.nextCursor}`)
      .set(other.auth)
      .expect(200);
    const items = [...page.items, ...(rest.body as { items: Listed[] }).items];
    expect((rest.body as { nextCursor: string | null }).nextCursor).toBeNull();
    expect(items.map((item) => item.event)).toEqual(['draft.awaiting_review', 'draft.awaiting_review', 'draft.awaiting_review']);
    for (const item of items) {
      expect(item).toEqual({
        id: expect.any(String),
        event: 'draft.awaiting_review',
        subject: { kind: 'draft', id: expect.any(String) },
        facts: { action: 'linkedin_scrape_profile', campaignId, expiresAt: expect.any(String) },
        link: `#review?draft=${item.subject.id as string}`,
        toAdmins: false,
        createdAt: expect.any(String),
      });
    }
    expect(items.map((item) => item.createdAt)).toEqual(
      items
        .map((item) => item.createdAt)
        .sort()
        .reverse(),
    );
    expect((await request(sut.http).get(`/api/${member.userId}/notifications`).set(member.auth).expect(200)).body).toEqual({
      items: [],
      nextCursor: null,
    });
    const bad = await request(sut.http).get(`/api/${other.userId}/notifications?cursor=nonsense`).set(other.auth).expect(400);
    expect((bad.body as { message: string }).message).toContain('cursor');

    // Without SMTP_URL nothing is queued for email, and nothing polls for it.
    const [{ n }] = await sut.app.get(DataSource).query<{ n: number }[]>(`SELECT count(*)::int AS n FROM notification_emails`);
    expect(n).toBe(0);
  });
});
