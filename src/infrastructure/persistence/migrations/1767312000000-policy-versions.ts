import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * policy_versions: every policy an admin stored (docs/policies.md), numbered 1, 2, … in the
 * order they were saved; the newest is in force. Version 0 is the built-in policy, which the
 * code holds and this table never does. `document` is the policy as readPolicy read it
 * (`{rules}`), `reason` the admin's why. The author is kept by id and by email as they were
 * then, without a foreign key: deleting an account must neither erase nor block the history.
 *
 * Rows are never changed or deleted (a trigger refuses it), so a version number names one
 * policy for good: the audit rows and the decisions that name a version can be read against it.
 */
export class PolicyVersions1767312000000 implements MigrationInterface {
  name = 'PolicyVersions1767312000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE policy_versions (
        version integer PRIMARY KEY CHECK (version >= 1),
        document jsonb NOT NULL CHECK (jsonb_typeof(document -> 'rules') = 'array'),
        author_id uuid NOT NULL,
        author_email text NOT NULL,
        reason text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 500),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE FUNCTION policy_versions_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'policy_versions is append-only: store a new version instead';
      END
      $$`);
    await db.query(`
      CREATE TRIGGER policy_versions_append_only BEFORE UPDATE OR DELETE ON policy_versions
      FOR EACH ROW EXECUTE FUNCTION policy_versions_append_only()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE policy_versions`);
    await db.query(`DROP FUNCTION policy_versions_append_only()`);
  }
}
