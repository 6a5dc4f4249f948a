import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import type { SignedInUser } from '../support/accounts';
import { connect2026 } from '../support/mcp-2026-client';
import { leads } from '../support/outreach';
import { useTestApp } from '../support/test-app';

const COUNT_KEYS = ['accounts', 'auditRows', 'decisionLogs', 'doNotContact', 'leads', 'messages', 'other'];

/**
 * Every erasure route over HTTP (docs/record-keeping.md#erasure): who may call it, what it
 * answers, what it refuses and how, and what the audit log shows afterwards.
 */
describe('erasure over HTTP', () => {
  const sut = useTestApp({ env: { API_RATE_LIMIT_PER_MINUTE: '1000' } });
  const admin = sut.user({ admin: true });
  const ada = sut.user();
  const bob = sut.user();
  const carol = sut.user();
  const dave = sut.user();
  const erin = sut.user();
  const frank = sut.user();
  let db: DataSource;

  beforeAll(() => {
    db = sut.app.get(DataSource);
  });

  const http = () => request(sut.http);

  /** A campaign of `owner` with `count` leads; their ids by profile URL. */
  async function campaignWithLeads(owner: SignedInUser, prefix: string, count = 2): Promise<{ id: string; leads: Map<string, string> }> {
    const created = await http().post(`/api/${owner.userId}/campaigns`).set(owner.auth).send({ name: prefix }).expect(201);
    const id = created.body.id as string;
    await http()
      .post(`/api/${owner.userId}/campaigns/${id}/leads`)
      .set(owner.auth)
      .send({ leads: leads(count, prefix) })
      .expect(201);
    const rows = await db.query<{ id: string; linkedin_url: string }[]>(`SELECT id, linkedin_url FROM leads WHERE campaign_id = $1`, [id]);
    return { id, leads: new Map(rows.map((row) => [row.linkedin_url, row.id])) };
  }

  const leadOf = (campaign: { leads: Map<string, string> }, prefix: string, n: number) =>
    campaign.leads.get(`https://www.linkedin.com/in/${prefix}-${n}/`)!;

  async function token(user: SignedInUser, scopes: string[]): Promise<{ Authorization: string }> {
    const created = await http().post(`/api/${user.userId}/tokens`).set(user.auth).send({ name: 'erasure', scopes }).expect(201);
    return { Authorization: `Bearer ${created.body.token as string}` };
  }

  async function auditRows(query: Record<string, string>): Promise<Record<string, unknown>[]> {
    const res = await http()
      .get('/admin/audit-logs')
      .query({ limit: '100', ...query })
      .set(admin.auth)
      .expect(200);
    return res.body.items as Record<string, unknown>[];
  }

  it('erases a lead of your campaign: 200 with counts, then 404 (idempotent in effect), audited without the data', async () => {
    const campaign = await campaignWithLeads(ada, 'ada-one');
    const leadId = leadOf(campaign, 'ada-one', 1);
    await http().post(`/api/${ada.userId}/do-not-contact`).set(ada.auth).send({ value: 'ada-one.1@example.com' }).expect(201);
    const path = `/api/${ada.userId}/campaigns/${campaign.id}/leads/${leadId}`;

    const erased = await http().delete(path).set(ada.auth).expect(200);
    expect(Object.keys(erased.body).sort()).toEqual(COUNT_KEYS);
    expect(erased.body).toMatchObject({ leads: 1, accounts: 0, doNotContact: 1 });
    // Again: the lead is gone, nothing more to erase.
    expect((await http().delete(path).set(ada.auth).expect(404)).body).toMatchObject({ code: 'ERASURE.LEAD_NOT_FOUND' });

    // The do-not-contact entry stays, without its value.
    const list = await http().get(`/api/${ada.userId}/do-not-contact`).set(ada.auth).expect(200);
    expect(list.body).toEqual([expect.objectContaining({ kind: 'email', value: null })]);
    expect(JSON.stringify(list.body)).not.toContain('ada-one.1');

    const [outcome] = await auditRows({ tool: 'erasure.lead', actorId: ada.userId, status: 'succeeded' });
    expect(outcome).toMatchObject({
      source: 'account',
      arguments: { kind: 'lead', campaignId: campaign.id, leadId },
      result: { ...erased.body, erasedAt: expect.any(String) },
      erasedBy: null,
    });
    expect(JSON.stringify(outcome)).not.toContain('ada-one');
  });

  it("answers 404, never 403, for another owner's lead, an unknown lead, or a lead of another campaign", async () => {
    const campaign = await campaignWithLeads(ada, 'ada-two');
    const leadId = leadOf(campaign, 'ada-two', 1);
    const other = await campaignWithLeads(ada, 'ada-three', 1);
    for (const [user, campaignId, id] of [
      [bob, campaign.id, leadId],
      [ada, campaign.id, randomUUID()],
      [ada, other.id, leadId],
    ] as const) {
      const res = await http().delete(`/api/${user.userId}/campaigns/${campaignId}/leads/${id}`).set(user.auth);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 404, code: 'ERASURE.LEAD_NOT_FOUND' });
    }
    expect(await db.query(`SELECT id FROM leads WHERE id = $1`, [leadId])).toHaveLength(1);
  });

  it('names the field of a malformed request: 400', async () => {
    const cases: [string, string, object | undefined, string][] = [
      ['delete', `/api/${ada.userId}/campaigns/not-a-uuid/leads/${randomUUID()}`, undefined, 'campaignId'],
      ['delete', `/api/${ada.userId}/campaigns/${randomUUID()}/leads/42`, undefined, 'leadId'],
      ['delete', `/admin/erasures/accounts/nope`, undefined, 'userId'],
      ['delete', `/admin/erasures/leads/${randomUUID()}/nope`, undefined, 'leadId'],
      ['post', `/api/${ada.userId}/erasures/email`, { email: 'not an address' }, 'email'],
      ['post', `/api/${ada.userId}/erasures/email`, {}, 'email'],
      ['post', `/api/${ada.userId}/erasures/email`, { email: 'x@example.com', also: 1 }, 'also'],
      ['post', `/admin/erasures/email`, { email: 42 }, 'email'],
      ['post', `/admin/erasures/email`, undefined, 'email'],
    ];
    for (const [method, path, body, field] of cases) {
      const user = path.startsWith('/admin') ? admin : ada;
      const call = method === 'delete' ? http().delete(path) : http().post(path).send(body);
      const res = await call.set(user.auth);
      expect({ path, status: res.status, names: JSON.stringify(res.body).includes(field) }).toEqual({ path, status: 400, names: true });
    }
  });

  it('erases by address over your campaigns only, and an admin over all; the audit row names no address', async () => {
    const mine = await campaignWithLeads(ada, 'shared');
    const theirs = await campaignWithLeads(bob, 'shared');
    const address = 'Shared.1@Example.COM';
    const own = await http().post(`/api/${ada.userId}/erasures/email`).set(ada.auth).send({ email: address }).expect(200);
    expect(own.body).toMatchObject({ leads: 1 });
    expect(await db.query(`SELECT id FROM leads WHERE id = $1`, [leadOf(mine, 'shared', 1)])).toEqual([]);
    expect(await db.query(`SELECT id FROM leads WHERE id = $1`, [leadOf(theirs, 'shared', 1)])).toHaveLength(1);
    // Erasing twice: 200, nothing left of Ada's.
    expect((await http().post(`/api/${ada.userId}/erasures/email`).set(ada.auth).send({ email: address }).expect(200)).body).toMatchObject({
      leads: 0,
    });

    const all = await http().post('/admin/erasures/email').set(admin.auth).send({ email: address }).expect(200);
    expect(all.body).toMatchObject({ leads: 1 });
    const rows = await auditRows({ tool: 'erasure.email' });
    expect(rows.filter((row) => row.status === 'succeeded').map((row) => row.source)).toEqual(['admin', 'account', 'account']);
    expect(JSON.stringify(rows).toLowerCase()).not.toContain('shared.1');
  });

  it("an owner's erasure finds the lead's texts only in the owner's records: another person's tool call and list keep the same address", async () => {
    // Erin writes the same address in a task of hers (an audited MCP call) and on her own do-not-contact list.
    const client = await connect2026(`${sut.http}/mcp`, erin.token);
    await client.callTool({ name: 'add_task', arguments: { title: 'Write to shared-addr.1@example.com' } });
    await client.close();
    await http().post(`/api/${erin.userId}/do-not-contact`).set(erin.auth).send({ value: 'shared-addr.1@example.com' }).expect(201);
    const campaign = await campaignWithLeads(frank, 'shared-addr', 1);
    await http().post(`/api/${frank.userId}/erasures/email`).set(frank.auth).send({ email: 'shared-addr.1@example.com' }).expect(200);
    expect(await db.query(`SELECT 1 FROM leads WHERE campaign_id = $1`, [campaign.id])).toEqual([]);

    const erins = await db.query<{ arguments: unknown; erased_at: Date | null }[]>(
      `SELECT arguments, erased_at FROM audit_log WHERE actor_id = $1 AND tool = 'add_task'`,
      [erin.userId],
    );
    // Its pending row and its outcome row, both as written.
    expect(erins).toEqual([
      { arguments: { title: 'Write to shared-addr.1@example.com' }, erased_at: null },
      { arguments: { title: 'Write to shared-addr.1@example.com' }, erased_at: null },
    ]);
    const list = await http().get(`/api/${erin.userId}/do-not-contact`).set(erin.auth).expect(200);
    expect(list.body).toEqual([expect.objectContaining({ value: 'shared-addr.1@example.com' })]);
  });

  it('lets an admin erase any lead (404 for an unknown one) and refuses the admin routes to others: 403, and 401 without a token', async () => {
    const campaign = await campaignWithLeads(bob, 'bob-admin', 1);
    const leadId = leadOf(campaign, 'bob-admin', 1);
    for (const [method, path, body] of [
      ['delete', `/admin/erasures/leads/${campaign.id}/${leadId}`, undefined],
      ['delete', `/admin/erasures/accounts/${bob.userId}`, undefined],
      ['post', '/admin/erasures/email', { email: 'bob-admin.1@example.com' }],
    ] as const) {
      const call = () => (method === 'delete' ? http().delete(path) : http().post(path).send(body));
      expect((await call().set(bob.auth)).status).toBe(403);
      expect((await call()).status).toBe(401);
    }
    expect(await db.query(`SELECT id FROM leads WHERE id = $1`, [leadId])).toHaveLength(1);
    await http().delete(`/admin/erasures/leads/${campaign.id}/${leadId}`).set(admin.auth).expect(200);
    const again = await http().delete(`/admin/erasures/leads/${campaign.id}/${leadId}`).set(admin.auth).expect(404);
    expect(again.body.code).toBe('ERASURE.LEAD_NOT_FOUND');
    const unknown = await http().delete(`/admin/erasures/accounts/${randomUUID()}`).set(admin.auth).expect(404);
    expect(unknown.body.code).toBe('ERASURE.ACCOUNT_NOT_FOUND');
  });

  it('takes an access token with the campaign scopes for a lead, and never for the account or the admin routes', async () => {
    const campaign = await campaignWithLeads(bob, 'bob-token', 1);
    const reader = await token(bob, ['campaigns:read']);
    const writer = await token(bob, ['campaigns:read', 'campaigns:write']);
    const path = `/api/${bob.userId}/campaigns/${campaign.id}/leads/${leadOf(campaign, 'bob-token', 1)}`;
    expect((await http().delete(path).set(reader)).status).toBe(403);
    await http().delete(path).set(writer).expect(200);
    const account = await http().delete(`/api/${bob.userId}`).set(writer);
    expect({ status: account.status, code: account.body.code }).toEqual({ status: 403, code: 'AUTH.SESSION_REQUIRED' });
    const adminToken = await token(admin, ['campaigns:read', 'campaigns:write', 'audit:read']);
    const res = await http().delete(`/admin/erasures/accounts/${bob.userId}`).set(adminToken);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 403, code: 'AUTH.SESSION_REQUIRED' });
    // Someone else's account: the path is not theirs.
    expect((await http().delete(`/api/${ada.userId}`).set(bob.auth)).status).toBe(403);
  });

  it('deletes your account: its token is refused after, the audit rows say erased by whom and when, and the chain still verifies', async () => {
    await campaignWithLeads(carol, 'carol', 1);
    // An audited change of hers, naming something personal: a token's name.
    await http()
      .post(`/api/${carol.userId}/tokens`)
      .set(carol.auth)
      .send({ name: 'carol private errand', scopes: ['tasks:read'] })
      .expect(201);
    const before = await auditRows({ actorId: carol.userId });
    expect(before.length).toBeGreaterThan(0);

    const erased = await http().delete(`/api/${carol.userId}`).set(carol.auth).expect(200);
    expect(erased.body).toMatchObject({ accounts: 1, leads: 1 });
    expect(erased.body.auditRows).toBeGreaterThan(0);
    const gone = await http().get('/auth/me').set(carol.auth);
    expect({ status: gone.status, code: gone.body.code }).toEqual({ status: 401, code: 'AUTH.UNAUTHENTICATED' });
    expect((await http().delete(`/api/${carol.userId}`).set(carol.auth)).status).toBe(401);

    const [outcome] = await auditRows({ tool: 'erasure.account', actorId: carol.userId, status: 'succeeded' });
    const erasedAt = (outcome.result as { erasedAt: string }).erasedAt;
    const after = await auditRows({ actorId: carol.userId });
    const emptied = after.filter((row) => !String(row.tool).startsWith('erasure.'));
    expect(emptied.length).toBe(before.length);
    for (const row of emptied)
      expect(row).toMatchObject({ erasedBy: carol.userId, erasedAt, arguments: {}, result: null, actorEmail: null });
    expect(JSON.stringify(after)).not.toContain('carol private errand');

    // An admin erases another account: the rows say the admin did.
    await http()
      .post(`/api/${dave.userId}/tokens`)
      .set(dave.auth)
      .send({ name: 'dave errand', scopes: ['tasks:read'] })
      .expect(201);
    await http().delete(`/admin/erasures/accounts/${dave.userId}`).set(admin.auth).expect(200);
    const daves = await auditRows({ actorId: dave.userId });
    expect(daves.length).toBeGreaterThan(0);
    for (const row of daves) expect(row.erasedBy).toBe(admin.userId);

    const verified = await http().get('/admin/audit-logs/verify').query({ full: 'true' }).set(admin.auth).expect(200);
    expect(verified.body).toMatchObject({ verified: true, firstBadSeq: null, firstBadCheckpoint: null, firstUnexplainedErasure: null });
  });
});

describe('erasure routes under the api rate limit', () => {
  const sut = useTestApp({ env: { API_RATE_LIMIT_PER_MINUTE: '2' } });
  const ada = sut.user();

  it('counts each erasure request as the other /api routes do: 429 past the limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await request(sut.http).post(`/api/${ada.userId}/erasures/email`).set(ada.auth).send({ email: 'nobody@example.com' });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
  });
});
