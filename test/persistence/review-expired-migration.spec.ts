import { addActiveCampaign, aLead, uniqueSlug } from '../factories/campaigns';
import { addUser } from '../factories/users';
import { undoMigrationsDownTo, useOpenDatabase } from '../support/persistence';

const MIGRATION = 'ReviewExpired1768665600000';

/** Tasks cancelled because their reviewer did not decide in time carried REVIEW_TIMED_OUT before; they say REVIEW_EXPIRED now. */
describe(`the ${MIGRATION} migration on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();
  const lastErrors = (campaignId: string) =>
    db.database
      .query<{ step: number; last_error: string | null }[]>(
        `SELECT step, last_error FROM outreach_tasks WHERE campaign_id = $1 ORDER BY step`,
        [campaignId],
      )
      .then((rows) => rows.map((row) => row.last_error));

  it('carries REVIEW_TIMED_OUT over to REVIEW_EXPIRED and back, and leaves every other code alone', async () => {
    // Made on today's schema, then carried down by the later migrations' own `down`.
    const owner = await addUser(db.database);
    const campaignId = await addActiveCampaign(db.database, owner.id, { now: new Date(), leads: [aLead(uniqueSlug())] });
    await undoMigrationsDownTo(db.database, MIGRATION);
    // The lead's two steps: one whose reviewer did not decide in time under the old code, one whose draft expired.
    await db.database.query(
      `UPDATE outreach_tasks SET last_error = CASE step WHEN 1 THEN 'REVIEW_TIMED_OUT' ELSE 'DRAFT_EXPIRED' END
       WHERE campaign_id = $1`,
      [campaignId],
    );
    expect(await lastErrors(campaignId)).toEqual(['REVIEW_TIMED_OUT', 'DRAFT_EXPIRED']);

    await db.database.runMigrations();
    expect(await lastErrors(campaignId)).toEqual(['REVIEW_EXPIRED', 'DRAFT_EXPIRED']);

    await undoMigrationsDownTo(db.database, MIGRATION);
    expect(await lastErrors(campaignId)).toEqual(['REVIEW_TIMED_OUT', 'DRAFT_EXPIRED']);
    await db.database.runMigrations();
  });
});
