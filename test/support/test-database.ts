import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { DatabaseSettings } from '../../src/infrastructure/config/app-config';

/**
 * A database of the test's own. With TEST_POSTGRES_URL (a server URL whose user may
 * CREATE DATABASE) it is a database on that server, dropped afterwards; otherwise an
 * embedded PGlite folder in a temporary directory, deleted afterwards.
 *
 * It starts as a copy of the run's migrated template (see database-template.ts) when
 * there is one, so a suite does not pay initdb and every migration; `fresh` skips the copy
 * for a test about start-up itself.
 */
export interface TestDatabase {
  readonly kind: DatabaseSettings['kind'];
  readonly settings: DatabaseSettings;
  dispose(): Promise<void>;
}

export const usingPostgresServer = Boolean(process.env.TEST_POSTGRES_URL);

/** Set by the global setup for the run: a migrated PGlite folder, or a database name on the server. */
export const TEMPLATE_ENV = 'BRIDLE_TEST_TEMPLATE';

export async function createTestDatabase(options: { fresh?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_POSTGRES_URL;
  return adminUrl ? createServerDatabase(adminUrl, options.fresh ? undefined : process.env[TEMPLATE_ENV]) : createEmbeddedDatabase(options);
}

/**
 * A database of the enclosing block's own, made before its tests (beforeAll) and disposed of
 * after them (afterAll), for a block that starts apps or commands on it itself.
 * `beforeDispose` runs first: the block's apps close before their database goes. Its fields
 * throw until it is made.
 */
export function useTestDatabase(options: { fresh?: boolean; beforeDispose?: () => unknown } = {}): TestDatabase {
  let made: TestDatabase | undefined;
  beforeAll(async () => {
    made = await createTestDatabase({ fresh: options.fresh });
  });
  afterAll(async () => {
    try {
      await options.beforeDispose?.();
    } finally {
      await made?.dispose();
    }
  });
  const database = () => made ?? unmade();
  return {
    get kind() {
      return database().kind;
    },
    get settings() {
      return database().settings;
    },
    dispose: () => database().dispose(),
  };
}

function unmade(): never {
  throw new Error('the database is made in beforeAll: use it from a test or a later hook');
}

/**
 * Where embedded test databases live: memory (/dev/shm) where there is one, since PGlite
 * writes through the file system and a disk's waits were most of a suite's time.
 */
export function testDataRoot(): string {
  dataRoot ??= canWrite('/dev/shm') ? '/dev/shm' : tmpdir();
  return dataRoot;
}
let dataRoot: string | undefined;

function canWrite(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** A PGlite folder of the caller's own: the migrated template's copy when the run has one (and `fresh` is not set), else empty. */
export async function embeddedDataDir(options: { fresh?: boolean } = {}): Promise<string> {
  const dataDir = await mkdtemp(join(testDataRoot(), 'bridle-test-'));
  const template = process.env[TEMPLATE_ENV];
  if (!options.fresh && template && !process.env.TEST_POSTGRES_URL) await cp(template, dataDir, { recursive: true });
  return dataDir;
}

async function createEmbeddedDatabase(options: { fresh?: boolean }): Promise<TestDatabase> {
  const dataDir = await embeddedDataDir(options);
  return {
    kind: 'embedded',
    settings: { kind: 'embedded', dataDir },
    dispose: () => rm(dataDir, { recursive: true, force: true }),
  };
}

async function createServerDatabase(adminUrl: string, template: string | undefined): Promise<TestDatabase> {
  const name = serverDatabaseName();
  await withAdmin(adminUrl, async (client) => {
    await client.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
    // A test database need not survive a power cut: commits skip the wait for the disk.
    await client.query(`ALTER DATABASE ${name} SET synchronous_commit = off`);
  });
  return {
    kind: 'server',
    settings: { kind: 'server', url: serverDatabaseUrl(adminUrl, name) },
    dispose: () => dropServerDatabase(adminUrl, name),
  };
}

export function serverDatabaseName(): string {
  const prefix = process.env.TEST_DATABASE_PREFIX ?? 'bridle_test';
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

export function serverDatabaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export function dropServerDatabase(adminUrl: string, name: string): Promise<void> {
  return withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

export async function withAdmin(adminUrl: string, run: (client: Client) => Promise<unknown>): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await run(client);
  } finally {
    await client.end();
  }
}
