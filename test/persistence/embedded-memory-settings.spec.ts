import { rm } from 'node:fs/promises';
import { openDatabase } from '../../src/infrastructure/persistence/database';
import { embeddedDataDir } from '../support/test-database';

/**
 * The embedded database runs with the memory settings docs/operations.md states ("Memory of
 * the embedded default"), on every start: the folder's postgresql.conf (PGlite's initdb
 * writes shared_buffers = 128MB there) must not win.
 */
describe('embedded PGlite memory settings', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await embeddedDataDir();
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('opens an existing data folder with 16 MB of shared buffers, and PGlite’s own start parameters kept', async () => {
    const database = await openDatabase({ kind: 'embedded', dataDir });
    try {
      const show = async (name: string) => ((await database.query<Record<string, string>[]>(`SHOW ${name}`))[0] ?? {})[name];
      expect(await show('shared_buffers')).toBe('16MB');
      // Two of PGlite's defaults (PGlite.defaultStartParams), which the settings add to rather than replace.
      expect(await show('search_path')).toBe('public');
      expect(await show('max_worker_processes')).toBe('0');
    } finally {
      await database.destroy();
    }
  });
});
