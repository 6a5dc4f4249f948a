import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { cleanupAll } from './support/cleanup';
import { bridleUsers } from './support/load';
import { speedAround, speedSentence, type SpeedReadings } from './support/machine-speed';
import { startListener, startNodeFlags } from './support/processes';
import { writeJson } from './support/results';
import { CASES, KEY_PATTERN_BEFORE, measure, MIB, round, time, type Timing } from './untrusted-text-cases';

/**
 * `npm run bench:untrusted-text`: every regular expression Bridle runs on text it did not write
 * takes time linear in that text.
 *
 * 1. Each pattern, and each function that runs patterns on untrusted text, is fed 1 MiB (2^20
 *    characters) of its worst case: long runs of what the pattern looks for without what would
 *    end its match (one long word, runs of digits, spaces, `@`, `.`, `:`, quotes, `eyJ-`…).
 *    Redaction's patterns are run uncut (maskSecrets); redactText and the log serializers as
 *    the service runs them, cutting first. Median of 3 timed runs after a warm-up; the target
 *    is under 50 ms each. The same on a quarter of the text shows how the time grows (4× for
 *    linear, 16× for quadratic). For scale, the key pattern redaction had before is timed on a
 *    word of 4 000, 8 000 and 16 000 characters.
 * 2. The built service (`node <config.startNodeFlags> dist/main.js`, PGlite, offline model,
 *    default log level) answers GET /health one request after the other for
 *    UNTRUSTED_SECONDS (default 6) alone, then as long again under each of three attacks by
 *    5 clients sending GET /api/<word>/tasks with no token, the word of 64 KB (Node refuses
 *    the request line: 431) and of 16 000 characters in turn (the longest a default Node
 *    reads: it reaches the guard and the request log), and 5 sending MCP tools/call add_task
 *    with a 62 KB title as a registered user:
 *    - each client once a second, answered or not (the target: /health p99 within 100 ms);
 *    - a flood: each client its next request as soon as the last was answered;
 *    - the same flood with short text (a URL word of one character, a title of 8): what a
 *      flood costs whatever its text, on a machine of 2 cores.
 * Writes bench/results/untrusted-text.{json,md}.
 */
const ROOT = join(__dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'main.js');
const RESULTS = join(ROOT, 'bench', 'results');
const TARGET_MS = 50;
const HEALTH_TARGET_MS = 100;
const SECONDS = Number(process.env.UNTRUSTED_SECONDS || 6);
const ATTACKERS = 5;

interface Answer {
  readonly status: number;
  readonly body: string;
}

function ask(
  agent: Agent,
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error('no answer in 60 s')));
    req.on('error', reject);
    req.end(body);
  });
}

interface Latencies {
  readonly requests: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

function percentiles(latencies: number[]): Latencies {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (p: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]);
  return { requests: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: round(sorted[sorted.length - 1]) };
}

/** GET /health, one after the other, until `until` resolves. */
async function pollHealth(port: number, until: Promise<void>): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  let done = false;
  void until.then(() => (done = true));
  while (!done) {
    const started = performance.now();
    const { status } = await ask(agent, port, 'GET', '/health');
    if (status !== 200) throw new Error(`/health answered ${status}`);
    latencies.push(performance.now() - started);
  }
  agent.destroy();
  return latencies;
}

interface Attack {
  readonly what: string;
  readonly clients: number;
  readonly statuses: Record<string, number>;
  readonly p50Ms: number;
  readonly maxMs: number;
}

/** How an attacking client sends: its next request once the last was answered, or one a second whatever the answers. */
type Pace = 'flood' | 'once a second';

/** `clients` clients sending at `pace` until `until`; resolves once every request sent was answered. */
async function attack(
  what: string,
  clients: number,
  pace: Pace,
  until: Promise<void>,
  send: (agent: Agent, i: number) => Promise<Answer>,
): Promise<Attack> {
  let done = false;
  void until.then(() => (done = true));
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      const agent = new Agent({ keepAlive: true, maxSockets: pace === 'flood' ? 1 : Infinity });
      const sent: Promise<void>[] = [];
      for (let i = 0; !done; i++) {
        const one = (async () => {
          const started = performance.now();
          const { status } = await send(agent, client * 1_000_000 + i).catch(() => ({ status: 0 }));
          latencies.push(performance.now() - started);
          const answer = status === 0 ? 'connection closed' : String(status);
          statuses[answer] = (statuses[answer] ?? 0) + 1;
        })();
        sent.push(one);
        await (pace === 'flood' ? one : Promise.race([seconds(1), until]));
      }
      await Promise.all(sent);
      agent.destroy();
    }),
  );
  const { p50Ms, maxMs } = percentiles(latencies);
  return { what, clients, statuses, p50Ms, maxMs };
}

const seconds = (s: number) => new Promise<void>((resolve) => setTimeout(resolve, s * 1000));

interface Phase {
  readonly what: string;
  readonly health: Latencies;
  readonly attacks: readonly Attack[];
}

interface EndToEnd {
  readonly seconds: number;
  readonly phases: readonly Phase[];
}

/** An attack: its clients' pace, the words of its URLs (in turn) and its MCP calls' title. */
interface Attacking {
  readonly what: string;
  readonly pace: Pace;
  readonly urlWords: readonly [string, string];
  readonly title: string;
}

const LONG_TEXT = { urlWords: ['a'.repeat(64 * 1024), 'a'.repeat(16_000)], title: 'a'.repeat(62 * 1024) } as const;
const SHORT_TEXT = { urlWords: ['a', 'a'], title: 'buy milk' } as const;

async function phase(port: number, token: string, attacking: Attacking | null, say: (text: string) => void): Promise<Phase> {
  const window = seconds(SECONDS);
  const ofLength = ({ length }: string) =>
    length % 1024 === 0 ? `${length / 1024} KB` : `${length.toLocaleString('en-US').replace(',', ' ')} character${length === 1 ? '' : 's'}`;
  const [health, ...attacks] = await Promise.all([
    pollHealth(port, window).then(percentiles),
    ...(attacking === null
      ? []
      : [
          attack(
            `GET /api/<a word of ${attacking.urlWords.map(ofLength).join(', then of ')}>/tasks, no token`,
            ATTACKERS,
            attacking.pace,
            window,
            (agent, i) => ask(agent, port, 'GET', `/api/${attacking.urlWords[i % 2]}/tasks`),
          ),
          attack(`POST /mcp tools/call add_task, a title of ${ofLength(attacking.title)}`, ATTACKERS, attacking.pace, window, (agent, id) =>
            ask(
              agent,
              port,
              'POST',
              '/mcp',
              { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
              JSON.stringify({
                jsonrpc: '2.0',
                id,
                method: 'tools/call',
                params: { name: 'add_task', arguments: { title: attacking.title } },
              }),
            ),
          ),
        ]),
  ]);
  const what = attacking === null ? 'alone' : attacking.what;
  say(`  /health ${what}: p50 ${health.p50Ms} ms, p99 ${health.p99Ms} ms, slowest ${health.maxMs} ms`);
  for (const one of attacks) say(`    ${one.what}: ${JSON.stringify(one.statuses)}, p50 ${one.p50Ms} ms`);
  return { what, health, attacks };
}

async function endToEnd(say: (text: string) => void): Promise<EndToEnd> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build:server\` first`);
  const dataDir = await mkdtemp(join(tmpdir(), 'bridle-untrusted-text-'));
  process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  const service = await startListener({
    label: 'bridle',
    args: [...startNodeFlags(ROOT), MAIN],
    cwd: ROOT,
    env: {
      BRIDLE_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      JWT_SECRET: randomBytes(36).toString('base64url'),
      // The limits would refuse the attack before it reaches the text: measured here is the text.
      AUTH_RATE_LIMIT_PER_MINUTE: '100000',
      API_RATE_LIMIT_PER_MINUTE: '1000000',
      MCP_RATE_LIMIT_PER_MINUTE: '1000000',
    },
    ready: async (port) => (await ask(new Agent(), port, 'GET', '/health')).status === 200,
  });
  try {
    const [user] = await bridleUsers(service.port, 1, randomBytes(4).toString('hex'));
    say(
      `  the service listens on ${service.port}; ${SECONDS} s each: /health alone, under attack, under a flood, under a flood of short text`,
    );
    const phases: Phase[] = [];
    for (const attacking of [
      null,
      { what: 'under attack, each client once a second', pace: 'once a second', ...LONG_TEXT },
      { what: 'under a flood of the same requests', pace: 'flood', ...LONG_TEXT },
      { what: 'under the same flood with short text', pace: 'flood', ...SHORT_TEXT },
    ] as const) {
      phases.push(await phase(service.port, user.token, attacking, say));
    }
    return { seconds: SECONDS, phases };
  } finally {
    await service.stop();
  }
}

interface Run {
  readonly date: string;
  readonly command: string;
  readonly node: string;
  readonly cores: number;
  readonly loadAverageAtStart: number;
  readonly timings: readonly Timing[];
  readonly before: readonly { readonly characters: number; readonly ms: number }[];
  readonly endToEnd: EndToEnd;
  readonly machineSpeed: SpeedReadings;
}

function markdown(run: Run): string {
  const slowest = run.timings.reduce((a, b) => (b.ms > a.ms ? b : a));
  const e2e = run.endToEnd;
  const growth = (timing: Timing) => (timing.quarterMs > 0 ? `${round(timing.ms / timing.quarterMs)}×` : '–');
  return [
    '# Untrusted text in linear time',
    '',
    `${run.date}, \`${run.command}\`, Node ${run.node}, ${run.cores} cores shared with other engineers' work (load average ` +
      `${run.loadAverageAtStart} at the start). ${speedSentence(run.machineSpeed)}`,
    '',
    `Each function fed 1 MiB (${MIB} characters) of its worst case, median of 3 runs (target < ${TARGET_MS} ms each), and a ` +
      `quarter of it (a linear function takes about 4 times as long on 4 times the text, a quadratic one 16): the slowest is ` +
      `${slowest.ms} ms (${slowest.group}: ${slowest.what}); ${run.timings.filter((timing) => timing.ms >= TARGET_MS).length} of ` +
      `${run.timings.length} take ${TARGET_MS} ms or more.`,
    '',
    '| group | worst case | ms for 1 MiB | ms for 256 KiB | 4× the text takes |',
    '|---|---|---|---|---|',
    ...run.timings.map((timing) => `| ${timing.group} | ${timing.what} | ${timing.ms} | ${timing.quarterMs} | ${growth(timing)} |`),
    '',
    `Before (the key pattern redaction had, on one word): ${run.before.map(({ characters, ms }) => `${characters} characters ${ms} ms`).join(', ')}.`,
    '',
    `The built service, GET /health one request after the other, ${e2e.seconds} s each (target: p99 ≤ ${HEALTH_TARGET_MS} ms under ` +
      'attack, each client once a second). Under a flood each client sends its next request as soon as the last was answered; ' +
      'the flood of short text is the same requests with a URL word of one character and a title of 8: what a flood costs ' +
      'whatever its text.',
    '',
    '| /health | requests | p50 ms | p99 ms | slowest ms |',
    '|---|---|---|---|---|',
    ...e2e.phases.map(({ what, health }) => `| ${what} | ${health.requests} | ${health.p50Ms} | ${health.p99Ms} | ${health.maxMs} |`),
    '',
    '| while | attack | clients | answers | p50 ms | slowest ms |',
    '|---|---|---|---|---|---|',
    ...e2e.phases.flatMap(({ what, attacks }) =>
      attacks.map(
        (one) =>
          `| ${what} | ${one.what} | ${one.clients} | ${Object.entries(one.statuses)
            .map(([status, count]) => `${count} × ${status}`)
            .join(', ')} | ${one.p50Ms} | ${one.maxMs} |`,
      ),
    ),
    '',
    `Command: \`${run.command}\``,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const say = (text: string) => process.stdout.write(`${text}\n`);
  const loadAverageAtStart = round(loadavg()[0]);
  const readSpeed = speedAround();
  say(`untrusted text: ${CASES.length} worst cases, 1 MiB and 256 KiB each`);
  const timings = measure(CASES, say);
  const before = [4_000, 8_000, 16_000].map((characters) => {
    const word = 'a'.repeat(characters);
    return { characters, ms: round(time(() => word.replace(KEY_PATTERN_BEFORE, ''))) };
  });
  say(`  before: ${before.map(({ characters, ms }) => `${characters} characters ${ms} ms`).join(', ')}`);
  say('end to end:');
  const e2e = await endToEnd(say);
  const result: Run = {
    date: new Date().toISOString(),
    command: [process.env.UNTRUSTED_SECONDS ? `UNTRUSTED_SECONDS=${SECONDS}` : '', 'npm run bench:untrusted-text']
      .filter(Boolean)
      .join(' '),
    node: process.versions.node,
    cores: cpus().length,
    loadAverageAtStart,
    timings,
    before,
    endToEnd: e2e,
    machineSpeed: readSpeed(),
  };
  mkdirSync(RESULTS, { recursive: true });
  await writeJson(join(RESULTS, 'untrusted-text.json'), result);
  writeFileSync(join(RESULTS, 'untrusted-text.md'), markdown(result));
  say('');
  say(readFileSync(join(RESULTS, 'untrusted-text.md'), 'utf8'));
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(() => cleanupAll());
