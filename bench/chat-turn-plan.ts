import { join } from 'node:path';
import { intFromEnv } from './support/env';
import type { Mix } from './support/load';

export const ROOT = join(__dirname, '..', '..');
export const MAIN = process.env.TURNS_MAIN || join(ROOT, 'dist', 'main.js');
export const REFERENCE = join(__dirname, 'reference', 'server.js');
export const FAKE = join(__dirname, 'support', 'fake-openai.js');
export const COMMAND = 'npm run bench:chat-turn';
const PARTIAL_KNOBS = [
  'TURNS_ONLY',
  'TURNS_MEASURED',
  'TURNS_WARMUP',
  'TURNS_MEASURED_C1',
  'TURNS_WARMUP_C1',
  'TURNS_CHUNKS',
  'TURNS_PROFILE',
  'TURNS_NODE_ARGS',
  'TURNS_MAIN',
  'TURNS_SERVER_ENV',
  'TURNS_HEAP_SNAPSHOTS',
];
export const PARTIAL = PARTIAL_KNOBS.some((name) => (process.env[name] ?? '') !== '');
export const HEAP_SNAPSHOTS = process.env.TURNS_HEAP_SNAPSHOTS === '1';
export const RESULTS = PARTIAL ? join(ROOT, 'dist-bench', 'results') : join(ROOT, 'bench', 'results');

export const TURNS = {
  16: { warmup: intFromEnv('TURNS_WARMUP', 2_000), measured: intFromEnv('TURNS_MEASURED', 10_000) },
  1: { warmup: intFromEnv('TURNS_WARMUP_C1', 2_000), measured: intFromEnv('TURNS_MEASURED_C1', 2_000) },
} as const;
export const CHUNKS = intFromEnv('TURNS_CHUNKS', 4);
export const QUIET_WAIT_MS = intFromEnv('TURNS_QUIET_WAIT_S', 60) * 1000;
/** Backends report their counters to pg_stat_database at most once a second, and within a second of going idle. */
export const STATS_SETTLE_MS = 2_000;
const RSS_EARLY_TURN = 1_000;
/** The first RSS reading: after the 1 000th measured turn, or half way through a shorter run. */
export const rssEarlyTurn = (measured: number) => Math.min(RSS_EARLY_TURN, Math.max(1, Math.round(measured / 2)));

/** TURNS_SERVER_ENV: `NAME=value` pairs separated by spaces. */
export function serverEnv(): Record<string, string> {
  const pairs = (process.env.TURNS_SERVER_ENV ?? '').split(/\s+/).filter((pair) => pair !== '');
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`TURNS_SERVER_ENV: "${pair}" is not NAME=value`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

// ---------------------------------------------------------------- the configurations

type System = 'bridle' | 'reference';
type Model = 'offline' | 'openai-fake';
type Database = 'pglite' | 'postgres';
type Concurrency = 1 | 16;

export interface Target {
  readonly id: string;
  readonly system: System;
  readonly model: Model;
  readonly database: Database;
  readonly mix: Mix;
  readonly concurrency: Concurrency;
  readonly warmup: number;
  readonly measured: number;
  readonly profiled: boolean;
}

/** Whether the id has every word of one of the comma-separated parts ("postgres/c16,reference"). */
function selects(list: string, id: string): boolean {
  const words = new Set(id.split('/'));
  return list
    .split(',')
    .map((part) => part.split('/').filter((word) => word.trim() !== ''))
    .some((part) => part.length > 0 && part.every((word) => words.has(word.trim())));
}

function target(system: System, model: Model, database: Database, mix: Mix, concurrency: Concurrency): Target {
  const id = `${system}/${model}/${database}/${mix}/c${concurrency}`;
  const profiled = system === 'bridle' && selects(process.env.TURNS_PROFILE ?? '', id);
  return { id, system, model, database, mix, concurrency, ...TURNS[concurrency], profiled };
}

/** Groups run one after the other; the targets of a group are measured side by side. */
export function plan(): Target[][] {
  const only = process.env.TURNS_ONLY ?? '';
  const wanted = (t: Target) => only.trim() === '' || selects(only, t.id);
  const groups: Target[][] = [];
  for (const concurrency of [16, 1] as const) {
    groups.push([
      target('bridle', 'openai-fake', 'postgres', 'add-only', concurrency),
      target('reference', 'openai-fake', 'postgres', 'add-only', concurrency),
    ]);
    for (const database of ['postgres', 'pglite'] as const) {
      for (const model of ['offline', 'openai-fake'] as const) {
        for (const mix of ['mixed', 'add-only'] as const) {
          if (!(database === 'postgres' && model === 'openai-fake' && mix === 'add-only'))
            groups.push([target('bridle', model, database, mix, concurrency)]);
        }
      }
    }
  }
  return groups.map((group) => group.filter(wanted)).filter((group) => group.length > 0);
}
