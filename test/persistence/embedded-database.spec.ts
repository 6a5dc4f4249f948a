import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type Options, transformFile } from '@swc/core';
import { DataDirLock, DataDirLockedError } from '../../src/infrastructure/persistence/data-dir-lock';
import { openDatabase } from '../../src/infrastructure/persistence/database';
import { ROOT } from '../support/built-service';
import { embeddedDataDir } from '../support/test-database';
import { processState, spawnUnreaped, type UnreapedProcess, untilZombie } from '../support/unreaped';

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

  describe('a holder in another process', () => {
    let lockModule: string;

    beforeAll(async () => {
      // The lock as the service runs it, compiled for a plain `node` child.
      const { code } = await transformFile(join(ROOT, 'src', 'infrastructure', 'persistence', 'data-dir-lock.ts'), {
        ...(JSON.parse(await readFile(join(ROOT, 'test', 'support', 'swc.json'), 'utf8')) as Options),
        swcrc: false,
        configFile: false,
      });
      lockModule = join(await mkdtemp(join(tmpdir(), 'bridle-lock-')), 'data-dir-lock.js');
      await writeFile(lockModule, code);
    });

    afterAll(() => rm(dirname(lockModule), { recursive: true, force: true }));

    /** A process that takes the folder's lock and keeps it, killed later without being reaped. */
    async function holder(): Promise<UnreapedProcess & { holderPid: number }> {
      const script = `require(process.argv[1]).DataDirLock.acquire(process.argv[2]).then(
        () => console.log('held'), (error) => { console.error(error.message); process.exit(1); });
        setInterval(() => undefined, 1 << 30);`;
      const process_ = spawnUnreaped([process.execPath, '-e', script, lockModule, dataDir]);
      const holderPid = await process_.pid;
      const deadline = Date.now() + 15_000;
      while (!process_.output().includes('held')) {
        if (Date.now() > deadline) throw new Error(`the holder did not take the lock:\n${process_.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return Object.assign(process_, { holderPid });
    }

    it('refuses the folder while a live process holds it, and takes it over once that process is killed, though not reaped', async () => {
      const held = await holder();
      try {
        await expect(DataDirLock.acquire(dataDir)).rejects.toThrow(
          `The data folder ${dataDir} is in use by another Bridle process (pid ${held.holderPid})`,
        );
        process.kill(held.holderPid, 'SIGKILL');
        // Dead, and still in the process table with its pid: its parent never waits for it.
        await untilZombie(held.holderPid);
        const lock = await DataDirLock.acquire(dataDir);
        expect(JSON.parse(await readFile(join(dataDir, 'bridle.lock'), 'utf8'))).toMatchObject({ pid: process.pid });
        await lock.release();
      } finally {
        await held.end();
      }
    });

    it('takes over a lock file naming a pid that now belongs to a live process holding nothing (a reused pid)', async () => {
      const someoneElse = spawnUnreaped(['sleep', '600']);
      try {
        const pid = await someoneElse.pid;
        expect(await processState(pid)).toMatch(/^[RS]$/);
        await writeFile(join(dataDir, 'bridle.lock'), JSON.stringify({ pid, since: new Date(0).toISOString() }));
        const lock = await DataDirLock.acquire(dataDir);
        expect(JSON.parse(await readFile(join(dataDir, 'bridle.lock'), 'utf8'))).toMatchObject({ pid: process.pid });
        await lock.release();
      } finally {
        process.kill(await someoneElse.pid, 'SIGKILL');
        await someoneElse.end();
      }
    });
  });
});
