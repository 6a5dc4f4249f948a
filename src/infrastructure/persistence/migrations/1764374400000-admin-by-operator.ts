import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The admin role is granted by the operator's command only. Until now it followed a list of
 * email addresses, so whoever signed up first with a listed address became an admin: no role
 * given that way can be trusted, and every one is withdrawn here. Each withdrawal is a
 * `revoke_admin` row of the audit log, as the command writes it; the operator grants the
 * role again with `npm run admin -- grant <email>`.
 */
export class AdminByOperator1764374400000 implements MigrationInterface {
  name = 'AdminByOperator1764374400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      INSERT INTO audit_log (source, actor_id, tool, arguments, status, result, security_events)
      SELECT 'admin', id, 'revoke_admin',
             jsonb_build_object('email', email, 'operator', 'migration AdminByOperator1764374400000'),
             'succeeded', jsonb_build_object('previousRole', 'admin', 'role', 'user'), '[]'::jsonb
      FROM users WHERE role = 'admin' ORDER BY email`);
    await db.query(`UPDATE users SET role = 'user' WHERE role = 'admin'`);
  }

  /** Withdrawn roles are not handed back: nothing tells a trusted one from a claimed one. */
  async down(): Promise<void> {}
}
