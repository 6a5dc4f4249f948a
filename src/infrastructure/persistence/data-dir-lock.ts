import { readFile, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const LOCK_FILE = 'bridle.lock';
/** Data folders locked by this process, so a stale lock carrying our own pid is told apart. */
const heldByThisProcess = new Set<string>();

export class DataDirLockedError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `The data folder ${dataDir} is in use by another Bridle process (pid ${pid}). ` +
        'The embedded database supports one process at a time: stop the other process, ' +
        'set BRIDLE_DATA_DIR to another folder, or run several processes against a ' +
        'PostgreSQL server through DATABASE_URL.',
    );
    this.name = 'DataDirLockedError';
  }
}

/**
 * An exclusive claim on an embedded data folder. PGlite has no locking of its own, and
 * two processes writing one folder silently lose writes.
 */
export class DataDirLock {
  private constructor(
    private readonly dataDir: string,
    private readonly file: string,
  ) {}

  /** @throws DataDirLockedError when a live process holds the folder. */
  static async acquire(dataDir: string): Promise<DataDirLock> {
    const dir = resolve(dataDir);
    const file = join(dir, LOCK_FILE);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await writeFile(file, JSON.stringify({ pid: process.pid, since: new Date().toISOString() }), {
          flag: 'wx',
        });
        heldByThisProcess.add(dir);
        return new DataDirLock(dir, file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = await readHolder(file);
      if (holder !== null && isAlive(holder) && (holder !== process.pid || heldByThisProcess.has(dir))) {
        throw new DataDirLockedError(dir, holder);
      }
      // The holder died without releasing (crash, kill -9): the lock is stale.
      await unlink(file).catch(() => undefined);
    }
    throw new Error(`Could not lock the data folder ${dir}: its lock file keeps reappearing`);
  }

  async release(): Promise<void> {
    heldByThisProcess.delete(this.dataDir);
    await unlink(this.file).catch(() => undefined);
  }
}

async function readHolder(file: string): Promise<number | null> {
  try {
    const pid = (JSON.parse(await readFile(file, 'utf8')) as { pid?: unknown }).pid;
    return typeof pid === 'number' ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
