import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * policy_versions.people: the accounts a version's rules name by email, as `{email: account
 * id}`, resolved once when the version is stored, so that every process decides the version
 * the same way whatever becomes of the accounts (docs/policies.md, "Whose calls"). Before, each
 * process resolved the emails again when it read the version, and an email re-registered by
 * someone else after its account was deleted named the newcomer on the processes that started
 * later only.
 *
 * Versions stored before are resolved here, once, as a process starting now would have: an
 * email that is no account's now stays out of the map and matches nobody. The table is
 * append-only (a trigger refuses updates); the trigger is set aside for this one fill, within
 * the migration's transaction.
 */
export class PolicyPeople1767574800000 implements MigrationInterface {
  name = 'PolicyPeople1767574800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE policy_versions ADD COLUMN people jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(people) = 'object')`,
    );
    await db.query(`ALTER TABLE policy_versions DISABLE TRIGGER policy_versions_append_only`);
    await db.query(`
      UPDATE policy_versions v SET people = coalesce((
        SELECT jsonb_object_agg(u.email, u.id::text) FROM users u
        WHERE u.email IN (
          SELECT named.person
          FROM jsonb_array_elements(v.document -> 'rules') AS rules(rule),
            jsonb_array_elements_text(
              CASE WHEN jsonb_typeof(rules.rule -> 'people') = 'array' THEN rules.rule -> 'people' ELSE '[]'::jsonb END
            ) AS named(person)
          WHERE position('@' in named.person) > 0)
      ), '{}'::jsonb)`);
    await db.query(`ALTER TABLE policy_versions ENABLE TRIGGER policy_versions_append_only`);
    await db.query(`ALTER TABLE policy_versions ALTER COLUMN people DROP DEFAULT`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE policy_versions DROP COLUMN people`);
  }
}
