import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ChatAndAudit1763856000000 implements MigrationInterface {
  name = 'ChatAndAudit1763856000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE conversations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        title varchar(80) NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await db.query(`CREATE INDEX conversations_user_recent_idx ON conversations (user_id, updated_at DESC, id DESC)`);
    await db.query(`
      CREATE TABLE messages (
        seq bigserial PRIMARY KEY,
        id uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
        conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        role varchar(16) NOT NULL CHECK (role IN ('user', 'assistant')),
        content text NOT NULL,
        tool_calls jsonb NOT NULL DEFAULT '[]',
        decision_type varchar(32),
        status varchar(32),
        created_at timestamptz NOT NULL
      )`);
    await db.query(`CREATE INDEX messages_conversation_seq_idx ON messages (conversation_id, seq DESC)`);
    await db.query(`
      CREATE TABLE pending_actions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        tool varchar(64) NOT NULL,
        arguments jsonb NOT NULL,
        arguments_hash char(64) NOT NULL,
        prompt text NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        resolved_at timestamptz,
        resolution varchar(16) CHECK (resolution IN ('confirmed', 'cancelled', 'dropped'))
      )`);
    await db.query(`CREATE INDEX pending_actions_open_idx ON pending_actions (conversation_id, created_at DESC) WHERE resolved_at IS NULL`);
    await db.query(`
      CREATE TABLE decision_logs (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL,
        conversation_id uuid,
        decision_type varchar(32) NOT NULL,
        status varchar(32) NOT NULL,
        iterations integer NOT NULL,
        provider varchar(32) NOT NULL,
        model varchar(128) NOT NULL,
        prompt_tokens integer NOT NULL,
        completion_tokens integer NOT NULL,
        duration_ms integer NOT NULL,
        failure_class varchar(32),
        provider_request_id varchar(256),
        created_at timestamptz NOT NULL
      )`);
    await db.query(`CREATE INDEX decision_logs_user_recent_idx ON decision_logs (user_id, created_at DESC)`);
    // Append-only: an outcome is a new row pointing at its pending row, never an update.
    await db.query(`
      CREATE TABLE audit_log (
        seq bigserial PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now(),
        source varchar(16) NOT NULL,
        actor_id uuid NOT NULL,
        conversation_id uuid,
        decision_id uuid,
        tool varchar(64) NOT NULL,
        arguments jsonb NOT NULL,
        status varchar(32) NOT NULL,
        result jsonb,
        error_code varchar(64),
        duration_ms integer,
        security_events jsonb NOT NULL DEFAULT '[]',
        pending_seq bigint REFERENCES audit_log (seq)
      )`);
    await db.query(`CREATE INDEX audit_log_decision_idx ON audit_log (decision_id)`);
    await db.query(`CREATE INDEX audit_log_actor_idx ON audit_log (actor_id, seq DESC)`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['audit_log', 'decision_logs', 'pending_actions', 'messages', 'conversations']) {
      await db.query(`DROP TABLE ${table}`);
    }
  }
}
