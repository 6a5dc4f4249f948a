import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { onCleanup, trackChild } from './cleanup';

/** Reading /proc: CPU time and memory of processes, how busy the machine is, and child processes that listen on a port. */

/** The node flags `npm start` runs the service with: package.json `config.startNodeFlags`, the embedded default's. */
export function startNodeFlags(root: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { config: { startNodeFlags: string } };
  return manifest.config.startNodeFlags.split(/\s+/).filter((flag) => flag !== '');
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A TCP port of 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** The fields of /proc/<pid>/stat after "pid (comm) ": state is [0], ppid [1], utime [11], stime [12], cutime [13], cstime [14]. */
export function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** utime + stime of one process (all its threads), in ms; undefined once it has gone. */
export function processCpuMs(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields ? ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK : undefined;
}

export function rssBytes(pid: number): number {
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) * 1024;
}

/** Busy and total jiffies of all cores together. */
export function machineCpu(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = fields[3] + fields[4];
  return { busy: total - idle, total };
}

/** Cores busy between two readings of machineCpu(). */
export function busyCores(before: { busy: number; total: number }, after: { busy: number; total: number }): number {
  return ((after.busy - before.busy) / Math.max(1, after.total - before.total)) * cpus().length;
}

/**
 * Waits (at most maxMs) until other work leaves the CPUs alone: the machine below busyPct for
 * one second. Returns the busy % of the last second measured.
 */
export async function waitForQuietMachine(out: (text: string) => void, maxMs: number, busyPct = 15): Promise<number> {
  const limit = Date.now() + maxMs;
  let told = false;
  for (;;) {
    const before = machineCpu();
    await sleep(1_000);
    const pct = (100 * busyCores(before, machineCpu())) / cpus().length;
    if (pct <= busyPct) return Math.round(pct);
    if (Date.now() > limit) {
      out(`  the machine is still ${pct.toFixed(0)} % busy with other work after ${Math.round(maxMs / 1000)} s: measuring anyway`);
      return Math.round(pct);
    }
    if (!told)
      out(`  the machine is ${pct.toFixed(0)} % busy with other work: waiting up to ${Math.round(maxMs / 1000)} s for it to calm down…`);
    told = true;
    await sleep(2_000);
  }
}

/** The TCP port the process listens on, from /proc (works whatever the process logs). */
export function listeningPort(pid: number): number | undefined {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode) inodes.add(inode);
      } catch {
        // the descriptor closed meanwhile
      }
    }
  } catch {
    return undefined;
  }
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // sl local_address rem_address st ... inode(9); st 0A = LISTEN
      if (fields.length > 9 && fields[3] === '0A' && inodes.has(fields[9])) return parseInt(fields[1].split(':')[1], 16);
    }
  }
  return undefined;
}

export interface Listener {
  readonly label: string;
  readonly pid: number;
  readonly port: number;
  /** The last output of the process (stdout and stderr), for error messages. */
  readonly output: () => string;
  /** SIGTERM, then SIGKILL after a grace period; resolves to the exit code. */
  readonly stop: () => Promise<number | null>;
}

export interface ListenerOptions {
  readonly label: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  readonly cwd: string;
  /** Besides listening: ready when this answers true (e.g. GET /health is 200). */
  readonly ready?: (port: number) => Promise<boolean>;
  /** Append the process's output to this file (an investigation). */
  readonly logFile?: string;
  readonly startTimeoutMs?: number;
  readonly stopTimeoutMs?: number;
}

/** Starts `node <args>` and resolves once it listens on a TCP port (and is ready). */
export async function startListener(options: ListenerOptions): Promise<Listener> {
  const startTimeoutMs = options.startTimeoutMs ?? 90_000;
  const child = spawn(process.execPath, [...options.args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  trackChild(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    if (options.logFile) appendFileSync(options.logFile, chunk);
    output += chunk.toString();
    if (output.length > 256_000) output = output.slice(-128_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      exitCode = code;
      resolve(code);
    }),
  );
  const kill = async (): Promise<number | null> => {
    if (exitCode !== undefined) return exitCode;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), options.stopTimeoutMs ?? 30_000);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  };
  const release = onCleanup(`stop ${options.label} (pid ${child.pid ?? '?'})`, async () => {
    await kill();
  });

  const deadline = Date.now() + startTimeoutMs;
  let port: number | undefined;
  while (Date.now() < deadline && exitCode === undefined && port === undefined) {
    port = child.pid ? listeningPort(child.pid) : undefined;
    if (port === undefined) await sleep(100);
  }
  let ready = port !== undefined && !options.ready;
  while (port !== undefined && options.ready && !ready && Date.now() < deadline && exitCode === undefined) {
    ready = await options.ready(port).catch(() => false);
    if (!ready) await sleep(100);
  }
  if (port === undefined || !ready || exitCode !== undefined || !child.pid) {
    await release();
    throw new Error(`${options.label} did not start (exit ${String(exitCode)}):\n${output.slice(-4000)}`);
  }
  return {
    label: options.label,
    pid: child.pid,
    port,
    output: () => output,
    stop: async () => {
      const code = await kill();
      await release();
      return code;
    },
  };
}
