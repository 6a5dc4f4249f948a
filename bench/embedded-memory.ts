import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { Agent } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type Launch, type Memory, Service } from './embedded-memory-service';
import { send } from './support/load';
import { sleep, startNodeFlags } from './support/processes';
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
const LAUNCH: Launch = { root: ROOT, main: MAIN, nodeArgs: NODE_ARGS };
const CONVERSATION_TURNS = 25;
const FIRST_CHECKPOINT = 1_000;
/** After the load: V8 gives back heap it no longer needs once the process is idle for a while. */
const IDLE_MS = 10_000;

function positive(name: string, fallback: number): number {
  const value = Number(process.env[name] || fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
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
    const { service: started, coldStartMs, coldStartCpuMs } = await Service.start(LAUNCH, dataDir, jwtSecret);
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
  const { service: last, coldStartMs, coldStartCpuMs } = await Service.start(LAUNCH, dataDir, jwtSecret);
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
