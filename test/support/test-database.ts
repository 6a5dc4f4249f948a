import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { DatabaseSettings } from '../../src/infrastructure/config/app-config';

/**
 * A database of the test's own. With TEST_POSTGRES_URL (a server URL whose user may
 * CREATE DATABASE) it is a fresh database on that server, dropped afterwards; otherwise
 * an embedded PGlite folder in a temporary directory, deleted afterwards.
 */
export interface TestDatabase {
  readonly kind: DatabaseSettings['kind'];
  readonly settings: DatabaseSettings;
  dispose(): Promise<void>;
}

export const usingPostgresServer = Boolean(process.env.TEST_POSTGRES_URL);

export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_POSTGRES_URL;
  return adminUrl ? createServerDatabase(adminUrl) : createEmbeddedDatabase();
}

async function createEmbeddedDatabase(): Promise<TestDatabase> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bridle-test-'));
  return {
    kind: 'embedded',
    settings: { kind: 'embedded', dataDir },
    dispose: () => rm(dataDir, { recursive: true, force: true }),
  };
}

async function createServerDatabase(adminUrl: string): Promise<TestDatabase> {
  const prefix = process.env.TEST_DATABASE_PREFIX ?? 'bridle_test';
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    kind: 'server',
    settings: { kind: 'server', url: url.toString() },
    dispose: () => withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  };
}

async function withAdmin(adminUrl: string, run: (client: Client) => Promise<unknown>): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await run(client);
  } finally {
    await client.end();
  }
}
