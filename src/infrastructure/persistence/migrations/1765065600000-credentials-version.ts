import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * users.credentials_version: moved on by one at every password change. Access tokens carry
 * the version they were issued under, and a token of another version is refused, so a
 * password change ends every session opened before it. Existing accounts start at 0, the
 * version a token without the claim is read as: tokens issued before this migration keep
 * working until the password changes.
 */
export class CredentialsVersion1765065600000 implements MigrationInterface {
  name = 'CredentialsVersion1765065600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE users ADD COLUMN credentials_version integer NOT NULL DEFAULT 0 CHECK (credentials_version >= 0)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE users DROP COLUMN credentials_version`);
  }
}
