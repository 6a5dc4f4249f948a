import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');
export const DIST = process.env.OUTREACH_BENCH_DIST || join(ROOT, 'dist');
export const HOOK = join(__dirname, 'outreach-statements.js');
export const RESULTS = join(ROOT, 'bench', 'results');
/** The shared server (trust auth, user postgres), or a private cluster. */
export const SHARED_SERVER = 'postgres://postgres@127.0.0.1:5432';
export const PRIVATE = process.env.OUTREACH_BENCH_POSTGRES === 'private';
export const WORKERS = 4;
export const SIZES = (process.env.OUTREACH_BENCH_SIZES || '1000,10000').split(',').map((size) => positive('OUTREACH_BENCH_SIZES', size));
export const MAX_SECONDS = positive('OUTREACH_BENCH_MAX_SECONDS', process.env.OUTREACH_BENCH_MAX_SECONDS || '300');
export const EXPLAIN = process.env.OUTREACH_BENCH_EXPLAIN !== '0';
export const LABEL = process.env.OUTREACH_BENCH_LABEL ?? '';
export const EXTRA_ENV = Object.fromEntries(
  (process.env.OUTREACH_BENCH_ENV ?? '')
    .split(',')
    .filter((pair) => pair.includes('='))
    .map((pair) => [pair.slice(0, pair.indexOf('=')).trim(), pair.slice(pair.indexOf('=') + 1).trim()]),
);
export const NODE_ARGS = (process.env.OUTREACH_BENCH_NODE_ARGS ?? '').split(/\s+/).filter((arg) => arg !== '');
export const SYNCHRONOUS_COMMIT = process.env.OUTREACH_BENCH_SYNCHRONOUS_COMMIT;
export const SAMPLE_EVERY_MS = 100;
export const START_TIMEOUT_MS = 90_000;
/** Statements shown per run, the costliest first (private cluster only). */
export const TOP_STATEMENTS = 15;
/** PostgreSQL CPU per cycle within this factor from the smallest campaign to the largest: "flat". */
export const TARGETS = { tasksPerSecond: 300, postgresMsPerCycle: 4, flatFactor: 1.25 } as const;

function positive(name: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must hold positive whole numbers, not "${raw}"`);
  return value;
}

export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
export const out = (text: string) => process.stdout.write(`${text}\n`);
