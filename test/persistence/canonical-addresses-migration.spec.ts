import { undoMigrationsDownTo, useOpenDatabase } from '../support/persistence';

const MIGRATION = 'CanonicalAddresses1767657600000';

/** Upgrading a database whose addresses were kept as typed (NFKC and lower-cased, the domain in Unicode). */
describe(`the ${MIGRATION} migration on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();

  it('canonicalises leads and do-not-contact entries, keys the leads, and merges entries that are now one', async () => {
    await undoMigrationsDownTo(db.database, MIGRATION);
    // Written as SQL of the schema before it: the repositories read the column it adds.
    const [owner] = await db.database.query<{ id: string }[]>(
      `INSERT INTO users (email, password_hash, role) VALUES ('owner@example.com', 'x', 'user') RETURNING id`,
    );
    const [campaign] = await db.database.query<{ id: string }[]>(
      `INSERT INTO campaigns (owner_id, name, status, limit_profile_lookup, limit_linkedin_message, limit_email, created_at, updated_at)
       VALUES ($1, 'Old', 'draft', 10, 10, 10, now(), now()) RETURNING id`,
      [owner.id],
    );
    const emails = ['h@münchen.example', 'b@mail.competitor\u3002com', 'ok@example.com', 'odd@xn--zz.example', null];
    for (const [i, email] of emails.entries()) {
      await db.database.query(`INSERT INTO leads (campaign_id, name, linkedin_url, email, created_at) VALUES ($1, $2, $3, $4, now())`, [
        campaign.id,
        `Lead ${i}`,
        `https://www.linkedin.com/in/lead-${i}/`,
        email,
      ]);
    }
    const listed = ['a@bücher.de', 'a@xn--bcher-kva.de', 'h@münchen.example', 'https://www.linkedin.com/in/x-y/'];
    for (const [i, value] of listed.entries()) {
      await db.database.query(`INSERT INTO do_not_contact (owner_id, kind, value, created_at) VALUES ($1, $2, $3, $4)`, [
        owner.id,
        value.startsWith('https://') ? 'linkedin' : 'email',
        value,
        new Date(Date.UTC(2026, 0, 1, 0, i)),
      ]);
    }

    await db.database.runMigrations();

    const leads = await db.database.query<{ email: string | null; email_key: string | null }[]>(
      `SELECT email, email_key FROM leads WHERE campaign_id = $1 ORDER BY name`,
      [campaign.id],
    );
    expect(leads).toEqual([
      { email: 'h@xn--mnchen-3ya.example', email_key: 'h@xn--mnchen-3ya.example' },
      { email: 'b@mail.competitor.com', email_key: 'b@mail.competitor.com' },
      { email: 'ok@example.com', email_key: 'ok@example.com' },
      // No canonical form: kept as it was (no proposal to it passes the contract).
      { email: 'odd@xn--zz.example', email_key: 'odd@xn--zz.example' },
      { email: null, email_key: null },
    ]);
    const entries = await db.database.query<{ kind: string; value: string }[]>(
      `SELECT kind, value FROM do_not_contact WHERE owner_id = $1 ORDER BY created_at`,
      [owner.id],
    );
    expect(entries).toEqual([
      { kind: 'email', value: 'a@xn--bcher-kva.de' },
      { kind: 'email', value: 'h@xn--mnchen-3ya.example' },
      { kind: 'linkedin', value: 'https://www.linkedin.com/in/x-y/' },
    ]);
  });
});
