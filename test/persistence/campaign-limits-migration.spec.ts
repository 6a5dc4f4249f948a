import { addUser } from '../factories/users';
import { undoMigrationsDownTo, useOpenDatabase } from '../support/persistence';

const MIGRATION = 'CampaignLimits1768752000000';

/** A campaign's limits were two columns per kind; they are rows of campaign_limits now, one per kind and window. */
describe(`the ${MIGRATION} migration on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();
  const rows = (campaignId: string) =>
    db.database.query<{ kind: string; window: string; max: number }[]>(
      `SELECT kind, "window", max FROM campaign_limits WHERE campaign_id = $1 ORDER BY kind, "window"`,
      [campaignId],
    );
  const columns = (campaignId: string) =>
    db.database
      .query<Record<string, number | null>[]>(
        `SELECT limit_profile_lookup, limit_linkedin_message, limit_email,
                weekly_limit_profile_lookup, weekly_limit_linkedin_message, weekly_limit_email
           FROM campaigns WHERE id = $1`,
        [campaignId],
      )
      .then(([row]) => row);

  it("carries each campaign's daily and weekly limits over into rows, drops the columns, and puts them back on the way down", async () => {
    await undoMigrationsDownTo(db.database, MIGRATION);
    const owner = await addUser(db.database);
    // Written as SQL of the schema before it.
    const [campaign] = await db.database.query<{ id: string }[]>(
      `INSERT INTO campaigns (owner_id, name, status, limit_profile_lookup, limit_linkedin_message, limit_email,
         weekly_limit_linkedin_message, created_at, updated_at)
       VALUES ($1, 'Old', 'active', 10, 20, 0, 70, now(), now()) RETURNING id`,
      [owner.id],
    );
    const before = await columns(campaign.id);

    await db.database.runMigrations();
    expect(await rows(campaign.id)).toEqual([
      { kind: 'email', window: 'day', max: 0 },
      { kind: 'linkedin_message', window: 'day', max: 20 },
      { kind: 'linkedin_message', window: 'week', max: 70 },
      { kind: 'profile_lookup', window: 'day', max: 10 },
    ]);
    const left = await db.database.query<{ column_name: string }[]>(
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'campaigns' AND column_name LIKE '%limit%'`,
    );
    expect(left).toEqual([]);

    // Down to before this migration, whatever later ones there are.
    await undoMigrationsDownTo(db.database, MIGRATION);
    expect(await columns(campaign.id)).toEqual(before);
    await db.database.runMigrations();
  });
});
