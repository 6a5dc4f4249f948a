import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bridle as the OAuth 2.1 authorization server of MCP clients (docs/security.md):
 * - oauth_clients: registered by the clients themselves (RFC 7591), checked and bounded
 *   (src/domain/identity/oauth.ts); every client is public, so no secret is kept;
 * - oauth_authorization_requests: the /authorize requests waiting for the person (10 min);
 * - oauth_grants: what a person allowed a client, live until revoked_at; at most one live
 *   grant per person, client and resource (a later consent widens it);
 * - oauth_authorization_codes and oauth_tokens: SHA-256 hashes only. Codes and tokens are
 *   256 random bits, too many to guess, so a fast hash is right: a slow one protects short
 *   passwords and would only slow every request. A refresh token's successors name it in
 *   parent_id (the rotation chain); used_at marks a spent code or refresh token.
 * Scopes are space-separated, as OAuth writes them.
 */
export class OAuth1766102400000 implements MigrationInterface {
  name = 'OAuth1766102400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE oauth_clients (
        id uuid PRIMARY KEY,
        redirect_uris jsonb NOT NULL CHECK (jsonb_typeof(redirect_uris) = 'array' AND octet_length(redirect_uris::text) <= 32000),
        client_name varchar(100),
        client_uri varchar(2000),
        software_id varchar(100),
        software_version varchar(100),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE TABLE oauth_authorization_requests (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        client_id uuid NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
        redirect_uri varchar(2000) NOT NULL,
        code_challenge varchar(128) NOT NULL,
        scopes varchar(200) NOT NULL CHECK (scopes <> ''),
        state varchar(1000),
        resource varchar(2000) NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        answer varchar(8) CHECK (answer IN ('approved', 'denied')),
        answered_by uuid REFERENCES users (id) ON DELETE CASCADE,
        answered_at timestamptz,
        CHECK ((answer IS NULL) = (answered_at IS NULL))
      )`);
    await db.query(`
      CREATE TABLE oauth_grants (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        client_id uuid NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
        scopes varchar(200) NOT NULL CHECK (scopes <> ''),
        resource varchar(2000) NOT NULL,
        created_at timestamptz NOT NULL,
        last_used_at timestamptz,
        revoked_at timestamptz
      )`);
    await db.query(`CREATE UNIQUE INDEX oauth_grants_live ON oauth_grants (user_id, client_id, resource) WHERE revoked_at IS NULL`);
    await db.query(`CREATE INDEX oauth_grants_user ON oauth_grants (user_id, created_at DESC)`);
    await db.query(`
      CREATE TABLE oauth_authorization_codes (
        code_hash char(64) PRIMARY KEY,
        request_id uuid NOT NULL UNIQUE REFERENCES oauth_authorization_requests (id) ON DELETE CASCADE,
        grant_id uuid NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
        scopes varchar(200) NOT NULL CHECK (scopes <> ''),
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await db.query(`
      CREATE TABLE oauth_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        grant_id uuid NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
        kind varchar(8) NOT NULL CHECK (kind IN ('access', 'refresh')),
        token_hash char(64) NOT NULL UNIQUE,
        scopes varchar(200) NOT NULL CHECK (scopes <> ''),
        parent_id uuid REFERENCES oauth_tokens (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        revoked_at timestamptz
      )`);
    await db.query(`CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE oauth_tokens`);
    await db.query(`DROP TABLE oauth_authorization_codes`);
    await db.query(`DROP TABLE oauth_grants`);
    await db.query(`DROP TABLE oauth_authorization_requests`);
    await db.query(`DROP TABLE oauth_clients`);
  }
}
