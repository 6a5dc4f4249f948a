import { readFileSync } from 'node:fs';
import { readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join, resolve } from 'node:path';

const LOCK_FILE = 'bridle.lock';
/**
 * How long a claim held by a process that is ending is waited for. Its thread-group leader
 * shows as a zombie as soon as it exits, while its other threads may still be closing the
 * files they share, the claim's socket with them: on a busy machine, for a few milliseconds.
 */
const ENDING_HOLDER_WAIT_MS = 3_000;
/** Data folders locked by this process, so a stale lock carrying our own pid is told apart (lock files only). */
const heldByThisProcess = new Set<string>();

export class DataDirLockedError extends Error {
  constructor(dataDir: string, pid: number | null) {
    super(
      `The data folder ${dataDir} is in use by another Bridle process${pid === null ? '' : ` (pid ${pid})`}. ` +
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
 *
 * On Linux the claim is a Unix socket in the abstract namespace named after the folder (its
 * device and inode), held open by this process: binding it is atomic, and the kernel closes it
 * when the process ends, however it ends. A process killed with SIGKILL, or dead and not yet
 * reaped by its parent (a zombie), holds nothing, and there is no pid to trust, so a reused
 * pid means nothing either. `bridle.lock` then only says who holds the folder, for the message.
 * Node has no flock without a native addon; the socket is what the kernel offers instead
 * (docs/operations.md, "The data folder's lock").
 *
 * Elsewhere (macOS) there is no abstract namespace: `bridle.lock` is the claim, created with
 * O_EXCL, and taken over when the pid it names no longer runs.
 */
export class DataDirLock {
  private constructor(
    private readonly dataDir: string,
    private readonly file: string,
    private readonly socket: Server | null,
  ) {}

  /** @throws DataDirLockedError when a live process holds the folder. */
  static async acquire(dataDir: string): Promise<DataDirLock> {
    const dir = resolve(dataDir);
    const file = join(dir, LOCK_FILE);
    if (process.platform !== 'linux') return DataDirLock.acquireLockFile(dir, file);
    const name = await socketName(dir);
    let socket = await bind(name);
    // A holder that is ending (dead, or a zombie whose other threads still close its files)
    // lets go within moments: wait for the kernel rather than refuse a restart made at once.
    for (const deadline = Date.now() + ENDING_HOLDER_WAIT_MS; socket === null && Date.now() < deadline;) {
      if (!isEnding(await readHolder(file))) break;
      await new Promise((wait) => setTimeout(wait, 50));
      socket = await bind(name);
    }
    if (socket === null) throw new DataDirLockedError(dir, await readHolder(file));
    try {
      await writeFile(file, JSON.stringify({ pid: process.pid, since: new Date().toISOString() }));
    } catch (error) {
      socket.close();
      throw error;
    }
    return new DataDirLock(dir, file, socket);
  }

  /** Where sockets have no abstract namespace: the lock file itself, created exclusively, a dead holder's taken over. */
  private static async acquireLockFile(dir: string, file: string): Promise<DataDirLock> {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await writeFile(file, JSON.stringify({ pid: process.pid, since: new Date().toISOString() }), { flag: 'wx' });
        heldByThisProcess.add(dir);
        return new DataDirLock(dir, file, null);
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
    // The file first: the next holder writes its own once the claim is free.
    await unlink(this.file).catch(() => undefined);
    await new Promise<void>((done) => (this.socket ? this.socket.close(() => done()) : done()));
  }
}

/** The folder's name in the abstract namespace: one per folder, however it is reached (a symlink, a bind mount). */
async function socketName(dir: string): Promise<string> {
  const { dev, ino } = await stat(dir, { bigint: true });
  return `\0bridle-data-dir/${dev}/${ino}`;
}

/** Listens on `name`; null when another socket holds it. The socket takes no connection and keeps no event loop alive. */
async function bind(name: string): Promise<Server | null> {
  const server = createServer();
  server.maxConnections = 0;
  try {
    await new Promise<void>((listening, failed) => {
      server.once('error', failed);
      server.listen(name, () => {
        server.off('error', failed);
        listening();
      });
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') return null;
    throw error;
  }
  server.unref();
  return server;
}

async function readHolder(file: string): Promise<number | null> {
  try {
    const pid = (JSON.parse(await readFile(file, 'utf8')) as { pid?: unknown }).pid;
    return typeof pid === 'number' ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Whether the process `pid` is ending: gone, or a zombie (`Z`) or dead (`X`) in /proc. A
 * pid the lock file does not name is no ending holder: the claim is refused at once.
 */
function isEnding(pid: number | null): boolean {
  if (pid === null || pid === process.pid) return false;
  if (!isAlive(pid)) return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command's closing parenthesis: its state, one letter.
    return /^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return true;
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
