import type { MigrationInterface, QueryRunner } from 'typeorm';
import { emailAddress } from '../../../domain/shared/email-address';

const BATCH = 5000;

/**
 * Email addresses in the one canonical form (src/domain/shared/email-address.ts): before, an
 * address was kept NFKC and lower-cased, its domain as typed, so `h@münchen.example` on a lead
 * and `h@xn--mnchen-3ya.example` on the do-not-contact list did not meet.
 *
 * - leads.email becomes the canonical address (the domain in its DNS form), and the new
 *   leads.email_key its comparison key, which the do-not-contact check compares with. An
 *   address with no canonical form keeps its old text as both: no send can use it (a proposal
 *   to it is refused), and the list still meets it as it did.
 * - do_not_contact's email entries become their keys; entries that are now one key are one
 *   entry, the oldest.
 *
 * Runs the domain's function, not SQL: IDNA is not in the database.
 */
export class CanonicalAddresses1767657600000 implements MigrationInterface {
  name = 'CanonicalAddresses1767657600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE leads ADD COLUMN email_key varchar(254)`);
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const leads = (await db.query(`SELECT id, email FROM leads WHERE email IS NOT NULL AND id > $1 ORDER BY id LIMIT ${BATCH}`, [
        after,
      ])) as { id: string; email: string }[];
      if (leads.length === 0) break;
      const canonical = leads.map((lead) => emailAddress(lead.email));
      await db.query(
        `UPDATE leads l SET email = u.email, email_key = u.key
           FROM unnest($1::uuid[], $2::text[], $3::text[]) AS u (id, email, key) WHERE l.id = u.id`,
        [
          leads.map((lead) => lead.id),
          leads.map((lead, i) => canonical[i]?.address ?? lead.email),
          leads.map((lead, i) => canonical[i]?.key ?? lead.email),
        ],
      );
      after = leads[leads.length - 1].id;
    }

    const entries = (await db.query(
      `SELECT id, owner_id, value FROM do_not_contact WHERE kind = 'email' ORDER BY owner_id, created_at, id`,
    )) as { id: string; owner_id: string; value: string }[];
    const kept = new Map<string, { id: string; value: string; key: string }>();
    const merged: string[] = [];
    for (const entry of entries) {
      const key = emailAddress(entry.value)?.key ?? entry.value;
      const slot = `${entry.owner_id}\n${key}`;
      if (kept.has(slot)) merged.push(entry.id);
      else kept.set(slot, { id: entry.id, value: entry.value, key });
    }
    if (merged.length > 0) await db.query(`DELETE FROM do_not_contact WHERE id = ANY($1::uuid[])`, [merged]);
    const changed = [...kept.values()].filter((entry) => entry.key !== entry.value);
    if (changed.length > 0) {
      await db.query(`UPDATE do_not_contact d SET value = u.value FROM unnest($1::uuid[], $2::text[]) AS u (id, value) WHERE d.id = u.id`, [
        changed.map((entry) => entry.id),
        changed.map((entry) => entry.key),
      ]);
    }
  }

  async down(db: QueryRunner): Promise<void> {
    // The canonical values stay: they are addresses the old code reads too.
    await db.query(`ALTER TABLE leads DROP COLUMN email_key`);
  }
}
