import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { MemorySample } from './embedded-memory-probe';
import { send } from './support/load';
import { freePort, sleep } from './support/processes';

/** The built service as `npm run bench:embedded-memory` runs it, with its memory read by the probe and from /proc. */

/** Which build of main.js to start, from where, with which node flags. */
export interface Launch {
  readonly root: string;
  readonly main: string;
  readonly nodeArgs: readonly string[];
}

const PROBE = join(__dirname, 'embedded-memory-probe.js');
const START_TIMEOUT_MS = 180_000;
const MiB = 1024 * 1024;

export interface Memory {
  readonly rssMiB: number;
  readonly peakRssMiB: number;
  readonly rssAnonMiB: number;
  readonly rssFileMiB: number;
  readonly heapUsedMiB: number;
  readonly heapTotalMiB: number;
  readonly externalMiB: number;
  /** Size of each live WebAssembly memory (PGlite's heap; initdb's too while it lives). */
  readonly wasmMiB: number[];
  /** How much of them is resident: the RSS of the anonymous mappings of exactly their size (/proc/<pid>/smaps). */
  readonly wasmResidentMiB: number | null;
}

const mib = (bytes: number) => Math.round((bytes / MiB) * 10) / 10;

function procStatus(pid: number): Record<string, number> {
  const fields: Record<string, number> = {};
  for (const line of readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) {
    const match = /^(\w+):\s+(\d+) kB$/.exec(line);
    if (match) fields[match[1]] = Number(match[2]) * 1024;
  }
  return fields;
}

/** utime + stime of the process, in ms (USER_HZ is 100 on Linux). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** RSS of the read-write anonymous mappings whose size is one of `sizes` (bytes): where V8 put the WebAssembly memories. */
function residentOfMappings(pid: number, sizes: number[]): number | null {
  let rss: number | null = null;
  let matches = false;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const mapping = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (mapping) {
      const size = parseInt(mapping[2], 16) - parseInt(mapping[1], 16);
      matches = mapping[3].startsWith('rw') && mapping[4] === '0' && mapping[5] === '' && sizes.includes(size);
    } else if (matches && line.startsWith('Rss:')) rss = (rss ?? 0) + Number(/\d+/.exec(line)?.[0]) * 1024;
  }
  return rss;
}

export class Service {
  private output = '';
  private exitCode: number | null | undefined;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-16_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = new Promise((resolve) =>
      child.on('exit', (code) => {
        this.exitCode = code;
        resolve();
      }),
    );
  }

  /** Starts the service on the folder; resolves at its first 200 from GET /health, with the time that took. */
  static async start(
    launch: Launch,
    dataDir: string,
    jwtSecret: string,
  ): Promise<{ service: Service; coldStartMs: number; coldStartCpuMs: number }> {
    const port = await freePort();
    const started = performance.now();
    const child = spawn(process.execPath, ['--expose-gc', ...launch.nodeArgs, '--require', PROBE, launch.main], {
      cwd: launch.root,
      env: {
        PATH: process.env.PATH ?? '',
        BRIDLE_DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        JWT_SECRET: jwtSecret,
        AUTH_RATE_LIMIT_PER_MINUTE: '100000',
        API_RATE_LIMIT_PER_MINUTE: '1000000',
        CHAT_RATE_LIMIT_PER_MINUTE: '1000000',
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const service = new Service(child, port);
    running.add(service);
    const health = new Agent({ keepAlive: false });
    while (performance.now() - started < START_TIMEOUT_MS && service.exitCode === undefined) {
      const reply = await send(health, port, 'GET', '/health').catch(() => undefined);
      if (reply?.status === 200)
        return { service, coldStartMs: Math.round(performance.now() - started), coldStartCpuMs: cpuMs(child.pid!) };
      await sleep(25);
    }
    await service.stop();
    throw new Error(`the service did not become healthy (exit ${String(service.exitCode)}):\n${service.output.slice(-4_000)}`);
  }

  /** The service's memory now; with `retained`, after a full garbage collection. */
  async memory(retained = false): Promise<Memory> {
    const answer = new Promise<MemorySample>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the probe did not answer')), 30_000);
      const onMessage = (message: { sample?: MemorySample }) => {
        if (!message.sample) return;
        clearTimeout(timer);
        this.child.off('message', onMessage);
        resolve(message.sample);
      };
      this.child.on('message', onMessage);
    });
    this.child.send(retained ? 'retained' : 'sample');
    const sample = await answer;
    const status = procStatus(this.child.pid!);
    const wasmResident = residentOfMappings(this.child.pid!, sample.wasmMemories);
    return {
      rssMiB: mib(sample.rss),
      peakRssMiB: mib(status.VmHWM),
      rssAnonMiB: mib(status.RssAnon),
      rssFileMiB: mib(status.RssFile + (status.RssShmem ?? 0)),
      heapUsedMiB: mib(sample.heapUsed),
      heapTotalMiB: mib(sample.heapTotal),
      externalMiB: mib(sample.external),
      wasmMiB: sample.wasmMemories.map(mib),
      wasmResidentMiB: wasmResident === null ? null : mib(wasmResident),
    };
  }

  async stop(): Promise<void> {
    if (this.exitCode === undefined) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
      await this.exited;
      clearTimeout(timer);
    }
    running.delete(this);
    if (this.exitCode !== 0) throw new Error(`the service exited with ${String(this.exitCode)}:\n${this.output.slice(-4_000)}`);
  }

  cpuMs(): number {
    return cpuMs(this.child.pid!);
  }

  /** read and write system calls so far. */
  io(): { reads: number; writes: number } {
    const io = readFileSync(`/proc/${this.child.pid!}/io`, 'utf8');
    return { reads: Number(/syscr: (\d+)/.exec(io)?.[1]), writes: Number(/syscw: (\d+)/.exec(io)?.[1]) };
  }

  kill(): void {
    if (this.exitCode === undefined) this.child.kill('SIGKILL');
  }
}

const running = new Set<Service>();
process.on('exit', () => running.forEach((service) => service.kill()));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
