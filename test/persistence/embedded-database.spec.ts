import { spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DataDirLockedError } from '../../src/infrastructure/persistence/data-dir-lock';
import { openDatabase } from '../../src/infrastructure/persistence/database';
import { embeddedDataDir } from '../support/test-database';

/** The embedded mode's own guarantees: one process per folder, data kept across reopen. */
describe('embedded PGlite data folder', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await embeddedDataDir();
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses a second opener while the first holds the folder, and lets it in after close', async () => {
    const first = await openDatabase({ kind: 'embedded', dataDir });
    try {
      await expect(openDatabase({ kind: 'embedded', dataDir })).rejects.toThrow(DataDirLockedError);
      await expect(openDatabase({ kind: 'embedded', dataDir })).rejects.toThrow(
        `The data folder ${dataDir} is in use by another Bridle process (pid ${process.pid})`,
      );
    } finally {
      await first.destroy();
    }
    const second = await openDatabase({ kind: 'embedded', dataDir });
    await second.destroy();
  });

  it('keeps data across close and reopen, running migrations only once', async () => {
    await rm(dataDir, { recursive: true, force: true });
    dataDir = await embeddedDataDir({ fresh: true });
    const first = await openDatabase({ kind: 'embedded', dataDir });
    await first.query(`INSERT INTO users (email, password_hash, role) VALUES ('keep@example.com', 'h', 'user')`);
    await first.destroy();

    const second = await openDatabase({ kind: 'embedded', dataDir });
    try {
      const rows = await second.query<{ email: string }[]>('SELECT email FROM users');
      expect(rows).toEqual([{ email: 'keep@example.com' }]);
      const applied = await second.query<unknown[]>('SELECT * FROM migrations');
      expect(applied).toHaveLength(second.migrations.length);
    } finally {
      await second.destroy();
    }
  });

  it('takes over a lock left by a process that died', async () => {
    const dead = spawn(process.execPath, ['-e', '']);
    const deadPid = dead.pid!;
    await new Promise((resolve) => dead.on('exit', resolve));
    await writeFile(join(dataDir, 'bridle.lock'), JSON.stringify({ pid: deadPid }));

    const database = await openDatabase({ kind: 'embedded', dataDir });
    try {
      expect(JSON.parse(await readFile(join(dataDir, 'bridle.lock'), 'utf8'))).toMatchObject({ pid: process.pid });
    } finally {
      await database.destroy();
    }
  });
});
