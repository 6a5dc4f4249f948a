import { addActiveCampaign, aLead, uniqueSlug } from '../factories/campaigns';
import { addUser } from '../factories/users';
import { undoMigrationsDownTo, useOpenDatabase } from '../support/persistence';

const MIGRATION = 'OpenTaskTypes1768838400000';

/** A task's type is any a channel declares (a capital, then letters and digits), no longer one of the built-in three. */
describe(`the ${MIGRATION} migration on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();
  const retype = (campaignId: string, type: string) =>
    db.database.query(`UPDATE outreach_tasks SET type = $2 WHERE campaign_id = $1 AND step = 1`, [campaignId, type]);

  it("admits a channel's own task type, still refuses one of another shape, and undone admits the built-in ones alone", async () => {
    await undoMigrationsDownTo(db.database, MIGRATION);
    const owner = await addUser(db.database);
    const campaignId = await addActiveCampaign(db.database, owner.id, { now: new Date(), leads: [aLead(uniqueSlug())] });
    await expect(retype(campaignId, 'SendSms')).rejects.toThrow(/outreach_tasks_type_check/);

    await db.database.runMigrations();
    await retype(campaignId, 'SendSms');
    await expect(retype(campaignId, 'send sms')).rejects.toThrow(/outreach_tasks_type_check/);
    await expect(retype(campaignId, `S${'a'.repeat(32)}`)).rejects.toThrow();

    await retype(campaignId, 'ScrapeProfile');
    await db.database.undoLastMigration();
    await expect(retype(campaignId, 'SendSms')).rejects.toThrow(/outreach_tasks_type_check/);
    await db.database.runMigrations();
  });
});
