import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Signed checkpoints of the audit chain (docs/decisions/0012-signed-audit-checkpoints.md): the
 * sealer writes one, in the transaction of the batch it follows, every AUDIT_CHECKPOINT_ROWS
 * links or AUDIT_CHECKPOINT_MINUTES. Append-only like the chain. `signature` is the Ed25519
 * signature of `bridle-audit-checkpoint:v1\n<position>\n<seq>\n<head_hash>\n<created_at, ISO>`
 * by the key `key_id` names; `public_key` (SPKI DER, base64) travels with it to digest files,
 * but verify trusts only the configured key.
 */
export class AuditCheckpoints1766966400000 implements MigrationInterface {
  name = 'AuditCheckpoints1766966400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE audit_checkpoints (
        position bigint PRIMARY KEY,
        seq bigint NOT NULL,
        head_hash char(64) NOT NULL,
        created_at timestamptz NOT NULL,
        key_id text NOT NULL,
        public_key text NOT NULL,
        signature text NOT NULL
      )`);
    await db.query(
      `CREATE TRIGGER audit_checkpoints_append_only BEFORE UPDATE OR DELETE ON audit_checkpoints FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change()`,
    );
    await db.query(
      `CREATE TRIGGER audit_checkpoints_no_truncate BEFORE TRUNCATE ON audit_checkpoints FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change()`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE audit_checkpoints`);
  }
}
