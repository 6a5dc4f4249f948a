import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * For the admin's reads: audit rows newest first by seq under each selective filter, and
 * decision logs newest first by (created_at, id). Source alone is not selective enough to
 * be worth slowing every append; it filters a seq scan.
 */
export class AuditReadIndexes1764201600000 implements MigrationInterface {
  name = 'AuditReadIndexes1764201600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX audit_log_conversation_idx ON audit_log (conversation_id, seq DESC) WHERE conversation_id IS NOT NULL`);
    await db.query(`CREATE INDEX audit_log_campaign_idx ON audit_log (campaign_id, seq DESC) WHERE campaign_id IS NOT NULL`);
    await db.query(`CREATE INDEX audit_log_tool_idx ON audit_log (tool, seq DESC)`);
    await db.query(`CREATE INDEX audit_log_status_idx ON audit_log (status, seq DESC)`);
    await db.query(`CREATE INDEX audit_log_created_idx ON audit_log (created_at)`);
    await db.query(`DROP INDEX decision_logs_user_recent_idx`);
    await db.query(`CREATE INDEX decision_logs_user_recent_idx ON decision_logs (user_id, created_at DESC, id DESC)`);
    await db.query(`CREATE INDEX decision_logs_recent_idx ON decision_logs (created_at DESC, id DESC)`);
    await db.query(
      `CREATE INDEX decision_logs_conversation_idx ON decision_logs (conversation_id, created_at DESC, id DESC) WHERE conversation_id IS NOT NULL`,
    );
    await db.query(
      `CREATE INDEX decision_logs_campaign_idx ON decision_logs (campaign_id, created_at DESC, id DESC) WHERE campaign_id IS NOT NULL`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    for (const index of [
      'decision_logs_campaign_idx',
      'decision_logs_conversation_idx',
      'decision_logs_recent_idx',
      'decision_logs_user_recent_idx',
      'audit_log_created_idx',
      'audit_log_status_idx',
      'audit_log_tool_idx',
      'audit_log_campaign_idx',
      'audit_log_conversation_idx',
    ]) {
      await db.query(`DROP INDEX ${index}`);
    }
    await db.query(`CREATE INDEX decision_logs_user_recent_idx ON decision_logs (user_id, created_at DESC)`);
  }
}
