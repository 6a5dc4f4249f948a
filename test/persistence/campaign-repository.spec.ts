import { randomUUID } from 'node:crypto';
import { CampaignNotFoundError, CampaignStateError, draftCampaign, renameOrRelimit } from '../../src/domain/outreach/campaign';
import { EMPTY_BRIEF, EMPTY_TEMPLATES } from '../../src/domain/outreach/brief';
import { type LeadDraft } from '../../src/domain/outreach/lead';
import { PostgresCampaignRepository } from '../../src/infrastructure/persistence/repositories/postgres-campaign.repository';
import { useOpenDatabase } from '../support/persistence';
import { aCampaignDraft, aLead } from '../factories/campaigns';
import { addUser } from '../factories/users';

describe(`${PostgresCampaignRepository.name} on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();
  let sut: PostgresCampaignRepository;
  const now = new Date('2026-11-22T09:00:00.000Z');

  beforeAll(() => {
    sut = new PostgresCampaignRepository(db.database);
  });

  const newOwner = async () => (await addUser(db.database)).id;
  const newCampaign = async (ownerId: string, at = now) => sut.create(ownerId, aCampaignDraft(), at);
  const lead = (slug: string, email: string | null = null): LeadDraft => aLead(slug, { email });
  const sql = <T>(query: string, parameters: unknown[]) => db.database.query<T>(query, parameters);
  const taskRows = (campaignId: string) =>
    sql<{ linkedin_url: string; type: string; step: number; status: string; attempts: number; next_run_at: Date }[]>(
      `SELECT l.linkedin_url, t.type, t.step, t.status, t.attempts, t.next_run_at
       FROM outreach_tasks t JOIN leads l ON l.id = t.lead_id WHERE t.campaign_id = $1 ORDER BY l.linkedin_url, t.step`,
      [campaignId],
    );

  it('adds leads with their tasks in one go, and reports the profiles the campaign already has', async () => {
    const campaign = await newCampaign(await newOwner());
    const first = await sut.addLeads(campaign.id, [lead('ada', 'ada@example.com'), lead('alan')], now);
    expect(first.existing).toEqual([]);
    expect(first.added).toEqual(
      expect.arrayContaining([
        {
          id: expect.any(String),
          campaignId: campaign.id,
          name: 'Lead ada',
          linkedinUrl: 'https://www.linkedin.com/in/ada/',
          email: 'ada@example.com',
          status: 'new',
          createdAt: now,
        },
        expect.objectContaining({ linkedinUrl: 'https://www.linkedin.com/in/alan/', email: null }),
      ]),
    );
    expect(await taskRows(campaign.id)).toEqual([
      {
        linkedin_url: 'https://www.linkedin.com/in/ada/',
        type: 'ScrapeProfile',
        step: 1,
        status: 'Pending',
        attempts: 0,
        next_run_at: now,
      },
      {
        linkedin_url: 'https://www.linkedin.com/in/ada/',
        type: 'SendLinkedInMessage',
        step: 2,
        status: 'Pending',
        attempts: 0,
        next_run_at: now,
      },
      { linkedin_url: 'https://www.linkedin.com/in/ada/', type: 'SendEmail', step: 3, status: 'Pending', attempts: 0, next_run_at: now },
      {
        linkedin_url: 'https://www.linkedin.com/in/alan/',
        type: 'ScrapeProfile',
        step: 1,
        status: 'Pending',
        attempts: 0,
        next_run_at: now,
      },
      {
        linkedin_url: 'https://www.linkedin.com/in/alan/',
        type: 'SendLinkedInMessage',
        step: 2,
        status: 'Pending',
        attempts: 0,
        next_run_at: now,
      },
    ]);

    const second = await sut.addLeads(campaign.id, [lead('ada'), lead('grace', 'grace@example.com')], now);
    expect(second.added.map((l) => l.linkedinUrl)).toEqual(['https://www.linkedin.com/in/grace/']);
    expect(second.existing).toEqual(['https://www.linkedin.com/in/ada/']);
    expect(await taskRows(campaign.id)).toHaveLength(8);
    await expect(sut.counts(campaign.id)).resolves.toEqual({
      leads: 3,
      tasks: { Pending: 8, InProgress: 0, AwaitingReview: 0, Completed: 0, Failed: 0, Cancelled: 0 },
    });
  });

  it('adds each profile once when imports into one campaign race', async () => {
    const campaign = await newCampaign(await newOwner());
    const batches = Array.from({ length: 4 }, (_, b) =>
      Array.from({ length: 30 }, (_, i) => lead(`racer-${(b * 10 + i) % 60}`, `r${i}@example.com`)),
    );
    const results = await Promise.all(batches.map((batch) => sut.addLeads(campaign.id, batch, now)));
    const added = results.flatMap((result) => result.added.map((l) => l.linkedinUrl));
    expect(new Set(added).size).toBe(added.length);
    expect(added).toHaveLength(new Set(batches.flat().map((l) => l.linkedinUrl)).size);
    expect(results.reduce((sum, result) => sum + result.added.length + result.existing.length, 0)).toBe(120);
    expect(await taskRows(campaign.id)).toHaveLength(3 * added.length);
  });

  it('adds nothing to a completed or unknown campaign', async () => {
    const campaign = await newCampaign(await newOwner());
    await sql(`UPDATE campaigns SET status = 'completed' WHERE id = $1`, [campaign.id]);
    await expect(sut.addLeads(campaign.id, [lead('late')], now)).rejects.toThrow(CampaignStateError);
    await expect(sut.addLeads(randomUUID(), [lead('late')], now)).rejects.toThrow(CampaignNotFoundError);
    expect(await taskRows(campaign.id)).toEqual([]);
  });

  it('changes a campaign only while its status is the one expected, and only for its owner', async () => {
    const owner = await newOwner();
    const campaign = await newCampaign(owner);
    const later = new Date(now.getTime() + 60_000);
    await expect(sut.update(owner, campaign.id, { status: 'active' }, later, 'paused')).resolves.toBeNull();
    await expect(sut.update(await newOwner(), campaign.id, { status: 'active' }, later, 'draft')).resolves.toBeNull();
    await expect(sut.get(owner, campaign.id)).resolves.toEqual(campaign);

    const limits = { profile_lookup: 1, linkedin_message: 2, email: 3 };
    await expect(
      sut.update(owner, campaign.id, { name: 'Renamed', dailyLimits: limits, status: 'active' }, later, 'draft'),
    ).resolves.toEqual({
      ...campaign,
      name: 'Renamed',
      dailyLimits: limits,
      status: 'active',
      updatedAt: later,
    });
    await expect(sut.update(owner, campaign.id, { status: 'completed' }, later, 'active')).resolves.toMatchObject({ completedAt: later });
  });

  it('deletes a campaign with its leads and tasks, never under an action in flight, and keeps the quota it used', async () => {
    const owner = await newOwner();
    const campaign = await newCampaign(owner);
    await sut.addLeads(campaign.id, [lead('busy')], now);
    const [task] = await sql<{ id: string }[]>(`SELECT id FROM outreach_tasks WHERE campaign_id = $1 AND step = 1`, [campaign.id]);
    await sql(
      `INSERT INTO outreach_actions (task_id, campaign_id, owner_id, decision_id, action, kind, channel, target, args,
         idempotency_key, status, pending_audit_seq, lease_expires_at, created_at)
       VALUES ($1, $2, $3, $4, 'linkedin_scrape_profile', 'profile_lookup', 'sandbox', 'https://www.linkedin.com/in/busy/',
         '{}', $5, 'in_flight', 1, $6, $6)`,
      [task.id, campaign.id, owner, randomUUID(), 'k'.repeat(64), now],
    );
    await sql(
      `INSERT INTO quota_ledger (scope, scope_id, kind, day, used, "limit") VALUES ('owner', $1, 'profile_lookup', '2026-11-22', 1, 100)`,
      [owner],
    );

    await expect(sut.delete(owner, campaign.id, 'draft')).resolves.toBe('action_in_flight');
    await expect(sut.delete(owner, campaign.id, 'paused')).resolves.toBe('status_changed');
    await expect(sut.delete(await newOwner(), campaign.id, 'draft')).resolves.toBe('not_found');
    await sql(`UPDATE outreach_actions SET status = 'succeeded' WHERE task_id = $1`, [task.id]);
    await expect(sut.delete(owner, campaign.id, 'draft')).resolves.toBe('deleted');

    await expect(sut.get(owner, campaign.id)).resolves.toBeNull();
    expect(await sql(`SELECT 1 FROM leads WHERE campaign_id = $1`, [campaign.id])).toEqual([]);
    expect(await taskRows(campaign.id)).toEqual([]);
    expect(await sql(`SELECT used FROM quota_ledger WHERE scope_id = $1`, [owner])).toEqual([{ used: 1 }]);
  });

  it('pages campaigns newest first and tasks in lead then step order, ties included, with no repeat or gap', async () => {
    const owner = await newOwner();
    const created = [];
    for (let i = 0; i < 5; i++) created.push(await newCampaign(owner, i < 3 ? now : new Date(now.getTime() + i)));
    const seen = [];
    for (let cursor: string | null = null, pages = 0; pages === 0 || cursor; pages++) {
      const page = await sut.list(owner, 2, cursor);
      seen.push(...page.items);
      cursor = page.nextCursor;
    }
    expect(seen.map((c) => c.id)).toEqual(
      [...created].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (b.id < a.id ? -1 : 1)).map((c) => c.id),
    );

    const campaign = created[0];
    await sut.addLeads(campaign.id, [lead('p-1', 'p1@example.com'), lead('p-2'), lead('p-3', 'p3@example.com')], now);
    await sut.addLeads(campaign.id, [lead('p-4')], new Date(now.getTime() + 1000));
    const tasks = [];
    for (let cursor: string | null = null, pages = 0; pages === 0 || cursor; pages++) {
      const page = await sut.listTasks(campaign.id, 3, cursor);
      tasks.push(...page.items);
      cursor = page.nextCursor;
    }
    expect(tasks).toHaveLength(10);
    expect(new Set(tasks.map((t) => t.id)).size).toBe(10);
    expect(tasks.slice(-2).map((t) => [t.leadLinkedinUrl, t.step])).toEqual([
      ['https://www.linkedin.com/in/p-4/', 1],
      ['https://www.linkedin.com/in/p-4/', 2],
    ]);
    for (let i = 1; i < tasks.length; i++) {
      if (tasks[i].step > 1) expect(tasks[i - 1]).toMatchObject({ leadId: tasks[i].leadId, step: tasks[i].step - 1 });
    }
    expect(tasks[0]).toMatchObject({ campaignId: campaign.id, leadName: expect.stringMatching(/^Lead p-/), output: null, lastError: null });
  });

  it('keeps one do-not-contact entry per value, even when added at once, and scopes it to the owner', async () => {
    const owner = await newOwner();
    const entries = await Promise.all(
      Array.from({ length: 5 }, () => sut.addDoNotContact(owner, { kind: 'email', value: 'ada@example.com' }, now)),
    );
    expect(new Set(entries.map((e) => e.id)).size).toBe(1);
    await expect(sut.listDoNotContact(owner)).resolves.toEqual([entries[0]]);
    await expect(sut.removeDoNotContact(await newOwner(), entries[0].id)).resolves.toBe(false);
    await expect(sut.removeDoNotContact(owner, entries[0].id)).resolves.toBe(true);
    await expect(sut.listDoNotContact(owner)).resolves.toEqual([]);
  });

  /** A campaign's brief and templates in their columns (migration CampaignBrief1765670400000). */
  describe('brief and templates', () => {
    it('is stored as written, read back, and changed only where a change says so', async () => {
      const ownerId = await newOwner();
      const brief = {
        offer: 'Une revue gratuite — "30 min" de votre CI ✓',
        tone: 'friendly',
        callToAction: null,
        senderName: "Zoë O'Brien",
        signature: 'Zoë\nAcme; Inc.',
      };
      const templates = { linkedinMessage: 'Hi {{firstName}}\n\n{{signature}}', emailSubject: null, emailBody: 'b'.repeat(5000) };
      const created = await sut.create(ownerId, draftCampaign({ name: 'Briefed', brief, templates }), now);
      expect(created).toMatchObject({ brief, templates });
      expect(await sut.get(ownerId, created.id)).toMatchObject({ brief, templates });

      const changes = renameOrRelimit(created, { templates: { emailSubject: 'For {{company}}', emailBody: null } });
      const updated = await sut.update(ownerId, created.id, changes, now, 'draft');
      expect(updated).toMatchObject({ brief, templates: { ...templates, emailSubject: 'For {{company}}', emailBody: null } });
      // A change that leaves the brief out keeps it.
      const renamed = await sut.update(ownerId, created.id, { name: 'Renamed' }, now, 'draft');
      expect(renamed).toMatchObject({ name: 'Renamed', brief, templates: updated!.templates });
    });

    it('is empty for a campaign without one, and refused by the database past its limits', async () => {
      const ownerId = await newOwner();
      const plain = await sut.create(ownerId, draftCampaign({ name: 'Plain' }), now);
      expect(plain).toMatchObject({ brief: EMPTY_BRIEF, templates: EMPTY_TEMPLATES });
      await expect(db.database.query(`UPDATE campaigns SET brief_tone = $1 WHERE id = $2`, ['t'.repeat(101), plain.id])).rejects.toThrow(
        /check constraint/,
      );
    });
  });
});
