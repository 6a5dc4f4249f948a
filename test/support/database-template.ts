import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { openDatabase } from '../../src/infrastructure/persistence/database';
import { dropServerDatabase, serverDatabaseName, serverDatabaseUrl, TEMPLATE_ENV, testDataRoot, withAdmin } from './test-database';

/**
 * Jest's global setup for the suites that use a database: migrates one database for the
 * whole run, which createTestDatabase then copies (a folder copy on PGlite, CREATE DATABASE
 * … TEMPLATE on a server) instead of running initdb and every migration per suite.
 * Workers inherit the variable it sets. Runs once however many projects list it.
 */
export default async function createDatabaseTemplate(): Promise<void> {
  if (process.env[TEMPLATE_ENV]) return;
  const adminUrl = process.env.TEST_POSTGRES_URL;
  if (adminUrl) {
    const name = serverDatabaseName();
    await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
    const database = await openDatabase({ kind: 'server', url: serverDatabaseUrl(adminUrl, name) });
    // A template may have no open connections while it is copied.
    await database.destroy();
    process.env[TEMPLATE_ENV] = name;
    return;
  }
  const dataDir = await mkdtemp(join(testDataRoot(), 'bridle-template-'));
  const database = await openDatabase({ kind: 'embedded', dataDir });
  await database.destroy();
  process.env[TEMPLATE_ENV] = dataDir;
}

/** Jest's global teardown: removes the template. */
export async function removeDatabaseTemplate(): Promise<void> {
  const template = process.env[TEMPLATE_ENV];
  if (!template) return;
  delete process.env[TEMPLATE_ENV];
  const adminUrl = process.env.TEST_POSTGRES_URL;
  await (adminUrl ? dropServerDatabase(adminUrl, template) : rm(template, { recursive: true, force: true }));
}
