import { PostgresUserRepository } from '../../src/infrastructure/persistence/repositories/postgres-user.repository';
import { BROKEN_LINKS, STRAY_ROWS } from '../support/audit-chain';
import { undoMigrationsDownTo, useOpenDatabase } from '../support/persistence';

const MIGRATION = 'AdminByOperator1764374400000';

/** Upgrading a database whose admins came from an address list. */
describe(`the ${MIGRATION} migration on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();

  it('withdraws every admin role, each as an audited revoke_admin in an unbroken chain, and leaves users alone', async () => {
    const users = new PostgresUserRepository(db.database);
    // Back to the schema before this migration (and any after it), with admins made the old way.
    await undoMigrationsDownTo(db.database, MIGRATION);
    // Written as SQL of that schema: the repository reads columns that later migrations add.
    const oldUser = async (email: string, role: 'user' | 'admin') => {
      const [row] = await db.database.query<{ id: string; email: string }[]>(
        `INSERT INTO users (email, password_hash, role) VALUES ($1, 'x', $2) RETURNING id, email`,
        [email, role],
      );
      return row;
    };
    const squatter = await oldUser('audit-team@example.com', 'admin');
    const ops = await oldUser('ops@example.com', 'admin');
    const ada = await oldUser('ada@example.com', 'user');

    await db.database.runMigrations();

    expect((await users.findByRole('admin')).map((user) => user.email)).toEqual([]);
    expect((await users.findById(ada.id))?.role).toBe('user');
    const rows = await db.database.query<
      { actor_id: string; source: string; tool: string; status: string; arguments: unknown; result: unknown }[]
    >(`SELECT actor_id, source, tool, status, arguments, result FROM audit_log ORDER BY seq`);
    expect(rows).toEqual(
      [squatter, ops].map((user) => ({
        actor_id: user.id,
        source: 'admin',
        tool: 'revoke_admin',
        status: 'succeeded',
        arguments: { email: user.email, operator: `migration ${MIGRATION}` },
        result: { previousRole: 'admin', role: 'user' },
      })),
    );
    // The rows were chained by the old trigger and moved into audit_chain by a later migration.
    expect(await db.database.query(`SELECT count(*)::int AS n FROM audit_chain`)).toEqual([{ n: 2 }]);
    expect(await db.database.query(BROKEN_LINKS)).toEqual([]);
    expect(await db.database.query(STRAY_ROWS)).toEqual([]);
  });
});
