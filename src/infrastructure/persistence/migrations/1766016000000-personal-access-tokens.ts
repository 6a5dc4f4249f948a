import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Personal access tokens: a person's credentials for scripts and MCP clients. Scopes are
 * space-separated, as OAuth writes them. Only the
 * secret's SHA-256 is kept (token_hash, unique: the one look-up every request makes); the
 * hint is the secret's last four characters, for the person to tell tokens apart.
 */
export class PersonalAccessTokens1766016000000 implements MigrationInterface {
  name = 'PersonalAccessTokens1766016000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE personal_access_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name varchar(100) NOT NULL,
        scopes varchar(200) NOT NULL CHECK (scopes <> ''),
        token_hash char(64) NOT NULL UNIQUE,
        hint varchar(4) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        last_used_at timestamptz,
        last_used_address varchar(64),
        revoked_at timestamptz
      )`);
    await db.query(`CREATE INDEX personal_access_tokens_user ON personal_access_tokens (user_id, created_at DESC)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE personal_access_tokens`);
  }
}
