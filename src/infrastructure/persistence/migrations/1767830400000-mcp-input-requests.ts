import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The questions 2026 MCP clients were asked in multi-round-trip requests (`input_required`),
 * one row each, so that an answer is taken once on the whole fleet: `answered_at` is set by one
 * conditional update. A person's expired rows are deleted when they are next asked.
 */
export class McpInputRequests1767830400000 implements MigrationInterface {
  name = 'McpInputRequests1767830400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE mcp_input_requests (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      call jsonb NOT NULL,
      answered_at timestamptz NULL
    )`);
    await db.query(`CREATE INDEX mcp_input_requests_user_expiry ON mcp_input_requests (user_id, expires_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE mcp_input_requests`);
  }
}
