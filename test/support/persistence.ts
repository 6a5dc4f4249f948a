import type { DataSource } from 'typeorm';
import type { DatabaseSettings } from '../../src/infrastructure/config/app-config';
import { openDatabase } from '../../src/infrastructure/persistence/database';
import { useTestDatabase } from './test-database';

export interface OpenDatabaseOptions {
  /** A database the migrations have not run on: opening it runs them. */
  readonly fresh?: boolean;
  /** `false` opens it as DATABASE_PREPARED_STATEMENTS=false does: every statement unnamed. */
  readonly preparedStatements?: boolean;
  /** Runs before the database closes: what holds a connection to it (a bus, a throttler's timer) goes first. */
  readonly beforeClose?: () => unknown;
}

/** The database a persistence block's tests share, open as the app opens it. */
export interface OpenTestDatabase {
  readonly database: DataSource;
  readonly settings: DatabaseSettings;
}

/**
 * A database of the enclosing block's own (useTestDatabase), opened with `openDatabase`
 * (migrations run) before its tests, and after them closed, then disposed of. Its fields
 * throw until it is open; a later beforeAll in the block can use them.
 */
export function useOpenDatabase(options: OpenDatabaseOptions = {}): OpenTestDatabase {
  let opened: DataSource | undefined;
  const testDb = useTestDatabase({
    fresh: options.fresh,
    beforeDispose: async () => {
      try {
        await options.beforeClose?.();
      } finally {
        await opened?.destroy();
      }
    },
  });
  beforeAll(async () => {
    const { settings } = testDb;
    opened = await openDatabase(
      options.preparedStatements === undefined ? settings : { ...settings, preparedStatements: options.preparedStatements },
    );
  });
  return {
    get database() {
      return opened ?? unopened();
    },
    get settings() {
      return testDb.settings;
    },
  };
}

function unopened(): never {
  throw new Error('the database is opened in beforeAll: use it from a test or a later hook');
}

/** Undoes the migrations from the newest down to and including `name`: the schema as it was before that migration ran. */
export async function undoMigrationsDownTo(database: DataSource, name: string): Promise<void> {
  const index = database.migrations.findIndex((migration) => migration.name === name);
  if (index < 0) throw new Error(`no migration named ${name}`);
  for (let i = database.migrations.length; i > index; i--) await database.undoLastMigration();
}
