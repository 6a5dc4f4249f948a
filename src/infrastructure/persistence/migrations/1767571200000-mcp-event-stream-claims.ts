import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One event stream per MCP session across the fleet: the session's row names the stream that
 * holds it (`stream_holder`, a replica's id and the stream's number there) and counts the
 * claims made on it (`stream_claims`), so that a replica told of a claim knows whether it is
 * newer than its own. A GET /mcp takes the stream over; the holder it replaces closes its own.
 */
export class McpEventStreamClaims1767571200000 implements MigrationInterface {
  name = 'McpEventStreamClaims1767571200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE mcp_sessions
      ADD COLUMN stream_holder varchar(64) NULL,
      ADD COLUMN stream_claims bigint NOT NULL DEFAULT 0`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE mcp_sessions DROP COLUMN stream_holder, DROP COLUMN stream_claims`);
  }
}
