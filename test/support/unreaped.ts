import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** A command run so that, once it dies, nobody reaps it: it stays a zombie until `parent` ends. */
export interface UnreapedProcess {
  /** The shell turned `sleep`, the command's parent, which never waits for it. A ChildProcess: Node reaps it once killed. */
  readonly parent: ChildProcess;
  /** The command's own pid. */
  readonly pid: Promise<number>;
  /** Its stdout and stderr so far. */
  readonly output: () => string;
  /** Ends the parent: the zombie goes to init, which reaps it. */
  end(): Promise<void>;
}

/**
 * Starts `argv` the way a supervisor that is slow to reap would leave it: a shell starts it in
 * the background, tells its pid on fd 3, then becomes `sleep`, which never calls wait(). Node's
 * own child_process would reap a child the moment it dies (libuv's SIGCHLD handler), so the
 * command is the grandchild, not the child.
 */
export function spawnUnreaped(argv: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): UnreapedProcess {
  const parent = spawn('sh', ['-c', '"$@" 3>&- & echo "$!" >&3; exec sleep 3600', 'sh', ...argv], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  let output = '';
  parent.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  parent.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const pid = new Promise<number>((resolve, reject) => {
    let told = '';
    parent.stdio[3]!.on('data', (chunk: Buffer) => {
      told += chunk.toString();
      if (told.includes('\n')) resolve(Number(told.trim()));
    });
    parent.on('exit', () => reject(new Error(`the shell ended before telling the pid:\n${output}`)));
  });
  const exited = new Promise<void>((resolve) => parent.on('exit', () => resolve()));
  return {
    parent,
    pid,
    output: () => output,
    end: async () => {
      if (parent.exitCode === null && parent.signalCode === null) parent.kill('SIGKILL');
      await exited;
    },
  };
}

/** The state letter in /proc/<pid>/stat (R, S, D, Z for a zombie…); null once no such process exists. */
export async function processState(pid: number): Promise<string | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name, in parentheses, may hold spaces: the state follows its last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return null;
  }
}

/** Resolves once `pid` has died and is a zombie: dead, its parent not having reaped it. */
export async function untilZombie(pid: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await processState(pid);
    if (state === 'Z') return;
    if (Date.now() > deadline) throw new Error(`pid ${pid} is not a zombie (state ${String(state)})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
