import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * MCP sessions in the database, so that any replica serves any session and a restart loses
 * none (docs/decisions/0011-mcp-sessions-in-the-database.md). The id is text, not uuid: it
 * arrives in a header, and a malformed one must find nothing rather than fail the cast.
 */
export class McpSessions1766880000000 implements MigrationInterface {
  name = 'McpSessions1766880000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE mcp_sessions (
        id varchar(64) PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        initialize jsonb NOT NULL,
        subscriptions text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL,
        last_seen_at timestamptz NOT NULL
      )`);
    // The per-person cap orders a person's sessions by use; the idle sweep reads the oldest.
    await db.query(`CREATE INDEX mcp_sessions_user ON mcp_sessions (user_id, last_seen_at)`);
    await db.query(`CREATE INDEX mcp_sessions_last_seen ON mcp_sessions (last_seen_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE mcp_sessions`);
  }
}
