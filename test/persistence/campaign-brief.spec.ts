import { randomBytes } from 'node:crypto';
import { draftCampaign, renameOrRelimit } from '../../src/domain/outreach/campaign';
import { EMPTY_BRIEF, EMPTY_TEMPLATES } from '../../src/domain/outreach/brief';
import { type Database, openDatabase } from '../../src/infrastructure/persistence/database';
import { PostgresCampaignRepository } from '../../src/infrastructure/persistence/repositories/postgres-campaign.repository';
import { PostgresUserRepository } from '../../src/infrastructure/persistence/repositories/postgres-user.repository';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

/** A campaign's brief and templates in their columns (migration CampaignBrief1765670400000). */
describe(`a campaign brief on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  let testDb: TestDatabase;
  let database: Database;
  let users: PostgresUserRepository;
  let sut: PostgresCampaignRepository;
  const now = new Date('2026-11-22T09:00:00.000Z');

  beforeAll(async () => {
    testDb = await createTestDatabase();
    database = await openDatabase(testDb.settings);
    users = new PostgresUserRepository(database.dataSource);
    sut = new PostgresCampaignRepository(database.dataSource);
  });

  afterAll(async () => {
    await database?.close();
    await testDb?.dispose();
  });

  const newOwner = async () =>
    (await users.create({ email: `owner-${randomBytes(4).toString('hex')}@example.com`, passwordHash: 'scrypt$x', role: 'user' })).id;

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
    await expect(
      database.dataSource.query(`UPDATE campaigns SET brief_tone = $1 WHERE id = $2`, ['t'.repeat(101), plain.id]),
    ).rejects.toThrow(/check constraint/);
  });
});
