import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the OAuth sweep (SweepOAuthRecordsUseCase) needs to delete old rows without reading
 * whole tables: an index on each column it selects by, and one on each column that
 * references a row it deletes (a cascade or SET NULL looks the referencing rows up).
 *
 * A token's `parent_id` (the refresh token it was exchanged for, kept as lineage) no longer
 * cascades: a refresh token's successor outlives it, and deleting the expired one deleted
 * every live token issued after it.
 */
export class OAuthSweep1766534400000 implements MigrationInterface {
  name = 'OAuthSweep1766534400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE oauth_tokens DROP CONSTRAINT oauth_tokens_parent_id_fkey`);
    await db.query(
      `ALTER TABLE oauth_tokens ADD CONSTRAINT oauth_tokens_parent_id_fkey FOREIGN KEY (parent_id) REFERENCES oauth_tokens (id) ON DELETE SET NULL`,
    );
    await db.query(`CREATE INDEX oauth_tokens_parent ON oauth_tokens (parent_id) WHERE parent_id IS NOT NULL`);
    await db.query(`CREATE INDEX oauth_tokens_expires ON oauth_tokens (expires_at)`);
    await db.query(`CREATE INDEX oauth_grants_client ON oauth_grants (client_id)`);
    await db.query(`CREATE INDEX oauth_grants_revoked ON oauth_grants (revoked_at) WHERE revoked_at IS NOT NULL`);
    await db.query(`CREATE INDEX oauth_authorization_requests_client ON oauth_authorization_requests (client_id)`);
    await db.query(`CREATE INDEX oauth_authorization_requests_expires ON oauth_authorization_requests (expires_at)`);
    await db.query(`CREATE INDEX oauth_authorization_codes_grant ON oauth_authorization_codes (grant_id)`);
    await db.query(`CREATE INDEX oauth_clients_created ON oauth_clients (created_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const index of [
      'oauth_clients_created',
      'oauth_authorization_codes_grant',
      'oauth_authorization_requests_expires',
      'oauth_authorization_requests_client',
      'oauth_grants_revoked',
      'oauth_grants_client',
      'oauth_tokens_expires',
      'oauth_tokens_parent',
    ])
      await db.query(`DROP INDEX ${index}`);
    await db.query(`ALTER TABLE oauth_tokens DROP CONSTRAINT oauth_tokens_parent_id_fkey`);
    await db.query(
      `ALTER TABLE oauth_tokens ADD CONSTRAINT oauth_tokens_parent_id_fkey FOREIGN KEY (parent_id) REFERENCES oauth_tokens (id) ON DELETE CASCADE`,
    );
  }
}
