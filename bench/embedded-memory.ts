import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { Agent } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { MemorySample } from './embedded-memory-probe';
import { send } from './support/load';
import { freePort, sleep, startNodeFlags } from './support/processes';
import { speedAround, speedSentence, type SpeedReadings } from './support/machine-speed';
import { writeJson } from './support/results';

/**
 * `npm run bench:embedded-memory`: memory and cold start of the embedded default (PGlite, the
 * offline model), measured on the built service as `npm start` runs it (`node <config.startNodeFlags>
 * dist/main.js`):
 *
 * 1. a start on a fresh data folder (initdb and every migration): process start to the first
 *    200 of GET /health, and the memory then;
 * 2. MEMORY_STARTS (3) starts on that folder, now existing; the last one stays up;
 * 3. MEMORY_TURNS (10 000) chat turns over HTTP from MEMORY_CONCURRENCY (16) clients, each its
 *    own account, "add buy milk <n>" (one add_task call a turn), a new conversation every 25
 *    turns; memory at turn 1 000 (under load, then after a full GC: what is still referenced),
 *    at the last turn (under load), 10 s after it, and after a full GC; the service's CPU time
 *    per turn;
 * 4. one more start on the folder that now holds those turns.
 *
 * Memory comes from the service itself (bench/embedded-memory-probe.ts, preloaded; the
 * service runs with --expose-gc, which only the bench's full GCs use): RSS, V8's heap, and
 * the size of each live WebAssembly memory (PGlite's heap); and from /proc/<pid>: the peak
 * RSS, RSS split into anonymous and file-backed pages, and how much of the WebAssembly
 * memories is resident (smaps). The cold start's CPU time counts every thread of the service.
 *
 * Prints a table and writes bench/results/embedded-memory.{json,md}, keeping the runs of
 * other labels (MEMORY_LABEL, default "current"); with MEMORY_TURNS, MEMORY_CONCURRENCY or
 * MEMORY_STARTS set, dist-bench/results/ instead. MEMORY_MAIN names another build of main.js,
 * MEMORY_NODE_ARGS the flags of its node instead of npm start's; MEMORY_DATA_ROOT the folder for data
 * (default the OS temporary folder, on disk).
 */

const ROOT = join(__dirname, '..', '..');
const MAIN = process.env.MEMORY_MAIN || join(ROOT, 'dist', 'main.js');
const PROBE = join(__dirname, 'embedded-memory-probe.js');
/** A shorter run (any of these set) writes to dist-bench/results, so a trial never replaces the committed figures. */
const TRIAL = ['MEMORY_TURNS', 'MEMORY_CONCURRENCY', 'MEMORY_STARTS'].some((name) => (process.env[name] ?? '') !== '');
const RESULTS = TRIAL ? join(__dirname, '..', 'results') : join(ROOT, 'bench', 'results');
const LABEL = process.env.MEMORY_LABEL || 'current';
const TURNS = positive('MEMORY_TURNS', 10_000);
const CONCURRENCY = positive('MEMORY_CONCURRENCY', 16);
const STARTS = positive('MEMORY_STARTS', 3);
const DATA_ROOT = process.env.MEMORY_DATA_ROOT || tmpdir();
/**
 * The service's node flags: by default those `npm start` uses (package.json config.startNodeFlags),
 * since that is how the embedded default runs; MEMORY_NODE_ARGS replaces them ("" for none).
 */
const NODE_ARGS =
  process.env.MEMORY_NODE_ARGS === undefined ? startNodeFlags(ROOT) : process.env.MEMORY_NODE_ARGS.split(/\s+/).filter((arg) => arg !== '');
const CONVERSATION_TURNS = 25;
const FIRST_CHECKPOINT = 1_000;
/** After the load: V8 gives back heap it no longer needs once the process is idle for a while. */
const IDLE_MS = 10_000;
const START_TIMEOUT_MS = 180_000;
const MiB = 1024 * 1024;

function positive(name: string, fallback: number): number {
  const value = Number(process.env[name] || fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

interface Memory {
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

interface Start {
  readonly folder: 'fresh' | 'existing' | 'existing, after the turns';
  readonly coldStartMs: number;
  /** CPU time (user + system, all threads) the service spent until then: less sensitive than the wall time to a busy machine. */
  readonly coldStartCpuMs: number;
  readonly memory: Memory;
}

interface Run {
  readonly label: string;
  readonly date: string;
  readonly command: string;
  readonly node: string;
  readonly cores: number;
  readonly loadAverageAtStart: number;
  readonly turns: number;
  readonly concurrency: number;
  readonly starts: Start[];
  /** Under load at turn 1 000 and at the last turn; after a full garbage collection (what is still referenced); idle after the load. */
  readonly checkpoints: { when: string; memory: Memory }[];
  readonly turnsPerSecond: number;
  /** CPU time of the service (all its threads) per turn during the load. */
  readonly serviceCpuMsPerTurn: number;
  /** read and write system calls of the service per turn during the load (/proc/<pid>/io): PGlite reads a page its shared buffers lack from the file system. */
  readonly readCallsPerTurn: number;
  readonly writeCallsPerTurn: number;
  readonly failedTurns: number;
  /** The flags of the service's node: npm start's, or MEMORY_NODE_ARGS. */
  readonly nodeArgs: string;
  /** How fast the machine was before and after (runs before 2026-11-26 14:00 UTC lack it). */
  readonly machineSpeed?: SpeedReadings;
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

class Service {
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
  static async start(dataDir: string, jwtSecret: string): Promise<{ service: Service; coldStartMs: number; coldStartCpuMs: number }> {
    const port = await freePort();
    const started = performance.now();
    const child = spawn(process.execPath, ['--expose-gc', ...NODE_ARGS, '--require', PROBE, MAIN], {
      cwd: ROOT,
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

interface Account {
  readonly userId: string;
  readonly token: string;
}

async function account(port: number, index: number): Promise<Account> {
  const credentials = { email: `memory-${index}@example.com`, password: `memory bench password ${index}` };
  const registered = await send(undefined, port, 'POST', '/auth/register', credentials);
  if (registered.status !== 201) throw new Error(`register: HTTP ${registered.status} ${registered.body}`);
  const login = await send(undefined, port, 'POST', '/auth/login', credentials);
  if (login.status !== 200) throw new Error(`login: HTTP ${login.status} ${login.body}`);
  const token = (JSON.parse(login.body) as { accessToken: string }).accessToken;
  const me = await send(undefined, port, 'GET', '/auth/me', undefined, token);
  return { userId: (JSON.parse(me.body) as { id: string }).id, token };
}

/** TURNS turns from CONCURRENCY clients; memory sampled when turn 1 000 and the last turn complete. */
async function chat(
  service: Service,
): Promise<Pick<Run, 'checkpoints' | 'turnsPerSecond' | 'serviceCpuMsPerTurn' | 'readCallsPerTurn' | 'writeCallsPerTurn' | 'failedTurns'>> {
  const accounts: Account[] = [];
  for (let i = 0; i < CONCURRENCY; i += 4)
    accounts.push(...(await Promise.all(Array.from({ length: Math.min(4, CONCURRENCY - i) }, (_, k) => account(service.port, i + k)))));
  const checkpoints: Promise<Run['checkpoints']>[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let next = 0;
  let done = 0;
  let failed = 0;
  const started = performance.now();
  const cpuBefore = service.cpuMs();
  const ioBefore = service.io();
  await Promise.all(
    accounts.map(async ({ userId, token }) => {
      let conversationId: string | undefined;
      let inConversation = 0;
      while (next < TURNS) {
        const n = next++;
        if (inConversation === CONVERSATION_TURNS) [conversationId, inConversation] = [undefined, 0];
        const reply = await send(
          agent,
          service.port,
          'POST',
          `/api/${userId}/chat`,
          { message: `add buy milk ${n}`, conversationId },
          token,
        );
        inConversation++;
        const body =
          reply.status === 200 ? (JSON.parse(reply.body) as { conversationId: string; toolCalls: { success: boolean }[] }) : undefined;
        if (body?.toolCalls[0]?.success === true) conversationId = body.conversationId;
        else if (++failed > TURNS / 100) throw new Error(`more than 1 % of the turns failed; the last: HTTP ${reply.status} ${reply.body}`);
        const turn = ++done;
        if (turn === FIRST_CHECKPOINT && turn < TURNS)
          checkpoints.push(
            service.memory().then(async (memory) => [
              { when: `turn ${turn}, under load`, memory },
              { when: `turn ${turn}, then a full GC`, memory: await service.memory(true) },
            ]),
          );
        if (turn === TURNS) checkpoints.push(service.memory().then((memory) => [{ when: `turn ${turn}, under load`, memory }]));
        if (done % 1_000 === 0) process.stdout.write(`  ${done} turns\n`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const serviceCpuMsPerTurn = Math.round(((service.cpuMs() - cpuBefore) / TURNS) * 100) / 100;
  const ioAfter = service.io();
  const readCallsPerTurn = Math.round(((ioAfter.reads - ioBefore.reads) / TURNS) * 10) / 10;
  const writeCallsPerTurn = Math.round(((ioAfter.writes - ioBefore.writes) / TURNS) * 10) / 10;
  agent.destroy();
  const rows = (await Promise.all(checkpoints)).flat();
  await sleep(IDLE_MS);
  rows.push({ when: `${IDLE_MS / 1000} s idle after the last turn`, memory: await service.memory() });
  rows.push({ when: 'then a full GC', memory: await service.memory(true) });
  return {
    checkpoints: rows,
    turnsPerSecond: Math.round(TURNS / seconds),
    serviceCpuMsPerTurn,
    readCallsPerTurn,
    writeCallsPerTurn,
    failedTurns: failed,
  };
}

function line(what: string, start: Start | undefined, memory: Memory): string {
  const wasm = memory.wasmMiB.length ? `${memory.wasmMiB.join(' + ')} (${memory.wasmResidentMiB ?? '?'} resident)` : '—';
  return `| ${what} | ${start ? `${start.coldStartMs} ms (${start.coldStartCpuMs} ms CPU)` : ''} | ${memory.rssMiB} | ${memory.peakRssMiB} | ${memory.rssAnonMiB} / ${memory.rssFileMiB} | ${memory.heapUsedMiB} / ${memory.heapTotalMiB} | ${memory.externalMiB} | ${wasm} |`;
}

function markdown(run: Run): string {
  return [
    `### ${run.label}`,
    '',
    `${run.date}, \`${run.command}\`, Node ${run.node}, ${run.cores} cores shared with other engineers' work (load average ${run.loadAverageAtStart} at the start). ` +
      `${run.nodeArgs ? `Service run with \`node ${run.nodeArgs}\`. ` : ''}${run.turns} turns from ${run.concurrency} clients at ${run.turnsPerSecond} turns/s ` +
      `(${run.serviceCpuMsPerTurn} ms of service CPU, ${run.readCallsPerTurn} read and ${run.writeCallsPerTurn} write system calls a turn), ` +
      `${run.failedTurns} failed. Memory in MiB.` +
      (run.machineSpeed ? ` ${speedSentence(run.machineSpeed)}` : ''),
    '',
    '| when | cold start: to the first 200 of /health (CPU time) | RSS | peak RSS | RSS anonymous / file | V8 heap used / total | external | WebAssembly memories (resident) |',
    '|---|---|---|---|---|---|---|---|',
    ...run.starts.map((start, i) => line(`start ${i + 1}, ${start.folder} folder`, start, start.memory)),
    ...run.checkpoints.map((checkpoint) => line(checkpoint.when, undefined, checkpoint.memory)),
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
  const dataDir = await mkdtemp(join(DATA_ROOT, 'bridle-memory-'));
  process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  const jwtSecret = randomBytes(36).toString('base64url');
  const loadAverageAtStart = Math.round(loadavg()[0] * 10) / 10;
  const readSpeed = speedAround();
  const starts: Start[] = [];
  const say = (text: string) => process.stdout.write(`${text}\n`);
  say(`embedded memory: ${MAIN}, data in ${dataDir}, ${TURNS} turns from ${CONCURRENCY} clients`);

  let service: Service | undefined;
  for (let i = 0; i <= STARTS; i++) {
    const { service: started, coldStartMs, coldStartCpuMs } = await Service.start(dataDir, jwtSecret);
    const memory = await started.memory();
    starts.push({ folder: i === 0 ? 'fresh' : 'existing', coldStartMs, coldStartCpuMs, memory });
    say(
      `  start ${i + 1} (${i === 0 ? 'fresh' : 'existing'} folder): ${coldStartMs} ms (${coldStartCpuMs} ms CPU), RSS ${memory.rssMiB} MiB`,
    );
    if (i < STARTS) await started.stop();
    else service = started;
  }
  const load = await chat(service!);
  for (const { when, memory } of load.checkpoints) say(`  ${when}: RSS ${memory.rssMiB} MiB, V8 heap used ${memory.heapUsedMiB} MiB`);
  await service!.stop();
  const { service: last, coldStartMs, coldStartCpuMs } = await Service.start(dataDir, jwtSecret);
  starts.push({ folder: 'existing, after the turns', coldStartMs, coldStartCpuMs, memory: await last.memory() });
  await last.stop();

  const run: Run = {
    label: LABEL,
    date: new Date().toISOString(),
    command: [
      ...Object.entries(process.env)
        .filter(([name]) => name.startsWith('MEMORY_'))
        .map(([name, value]) => `${name}=${JSON.stringify(value)}`),
      'npm run bench:embedded-memory',
    ].join(' '),
    node: process.versions.node,
    cores: cpus().length,
    loadAverageAtStart,
    turns: TURNS,
    concurrency: CONCURRENCY,
    starts,
    checkpoints: load.checkpoints,
    turnsPerSecond: load.turnsPerSecond,
    serviceCpuMsPerTurn: load.serviceCpuMsPerTurn,
    readCallsPerTurn: load.readCallsPerTurn,
    writeCallsPerTurn: load.writeCallsPerTurn,
    failedTurns: load.failedTurns,
    nodeArgs: NODE_ARGS.join(' '),
    machineSpeed: readSpeed(),
  };
  mkdirSync(RESULTS, { recursive: true });
  const file = join(RESULTS, 'embedded-memory.json');
  const previous = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { runs: Run[] }).runs : [];
  const runs = [...previous.filter((other) => other.label !== LABEL), run];
  await writeJson(file, { runs });
  const text = [
    '# Embedded default: memory and cold start',
    '',
    '`bench/embedded-memory.ts`; one section per label (MEMORY_LABEL).',
    '',
    ...runs.map(markdown),
  ].join('\n');
  writeFileSync(join(RESULTS, 'embedded-memory.md'), text);
  say('');
  say(markdown(run));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
