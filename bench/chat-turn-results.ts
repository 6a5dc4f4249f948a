import { rssEarlyTurn, type Target } from './chat-turn-plan';
import type { Running } from './chat-turn-services';
import type { ProfileSummary } from './support/cpu-profile';
import { type Kind, KINDS } from './support/load';
import type { PostgresFigures } from './support/postgres-figures';

// ---------------------------------------------------------------- results

export interface Latency {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
  readonly count: number;
}

export interface Result extends Pick<Target, 'id' | 'system' | 'model' | 'database' | 'mix' | 'concurrency' | 'profiled'> {
  readonly warmupTurns: number;
  readonly measuredTurns: number;
  readonly chunks: number;
  readonly seconds: number;
  readonly turnsPerSecond: number;
  readonly latencyMs: Latency;
  readonly latencyByKindMs: Partial<Record<Kind, Latency>>;
  readonly cpuMsPerTurn: {
    readonly server: number;
    /** Every process of the private cluster (null on PGlite: the database runs inside the server). */
    readonly postgres: number | null;
    readonly postgresBackends: number | null;
    readonly loadGenerator: number;
    readonly fakeModel: number | null;
  };
  /** Cores busy on average while measuring: the machine, and the part no process of the benchmark used (other engineers' work). */
  readonly cores: { readonly machine: number; readonly other: number };
  readonly postgres: PostgresFigures | null;
  readonly modelRequestsPerTurn: number | null;
  readonly rss: {
    readonly earlyTurn: number;
    readonly earlyMb: number;
    readonly finalTurn: number;
    readonly finalMb: number;
    readonly changePct: number;
    readonly traceMb: readonly { readonly turn: number; readonly mb: number }[];
  };
  readonly failures: number;
  readonly unexpectedReplies: number;
  readonly sent: number;
  readonly problems: readonly string[];
  readonly checks: readonly string[];
  readonly setupSeconds: number;
  readonly machineBusyBeforePct: number;
  readonly serverExitCode: number | null;
  readonly profile?: ProfileSummary;
  /** TURNS_HEAP_SNAPSHOTS: the live heap (after a full collection) after the early turn and after the last, by the service's turn. */
  readonly liveHeapMb?: { readonly earlyTurn: number; readonly early: number; readonly finalTurn: number; readonly final: number };
}

export interface GroupFailure {
  readonly ids: readonly string[];
  readonly error: string;
}

export function result(
  run: Running,
  postgres: PostgresFigures | null,
  checks: string[],
  machineBusyBeforePct: number,
  serverExitCode: number | null,
  profile: ProfileSummary | undefined,
): Result {
  const t = run.target;
  const turns = run.measuredDone;
  const stats = run.load.stats;
  const byKind: Partial<Record<Kind, Latency>> = {};
  if (t.mix === 'mixed') for (const kind of KINDS) byKind[kind] = summarise(stats.byKind[kind]);
  const early = run.trace.find((point) => point.turn === rssEarlyTurn(t.measured)) ?? run.trace[0];
  const last = run.trace.at(-1) ?? early;
  const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);
  const machineCores = run.machineCoreMs / run.ms;
  const ownCores = (run.serverMs + run.postgresMs + run.clientMs + run.fakeMs) / run.ms;
  return {
    id: t.id,
    system: t.system,
    model: t.model,
    database: t.database,
    mix: t.mix,
    concurrency: t.concurrency,
    profiled: t.profiled,
    warmupTurns: t.warmup,
    measuredTurns: turns,
    chunks: run.chunks,
    seconds: round(run.ms / 1000, 2),
    turnsPerSecond: round(turns / (run.ms / 1000), 1),
    latencyMs: summarise(stats.latencies),
    latencyByKindMs: byKind,
    cpuMsPerTurn: {
      server: round(run.serverMs / turns, 3),
      postgres: t.database === 'postgres' ? round(run.postgresMs / turns, 3) : null,
      postgresBackends: t.database === 'postgres' ? round(run.postgresBackendsMs / turns, 3) : null,
      loadGenerator: round(run.clientMs / turns, 3),
      fakeModel: t.model === 'openai-fake' ? round(run.fakeMs / turns, 3) : null,
    },
    cores: { machine: round(machineCores, 2), other: round(Math.max(0, machineCores - ownCores), 2) },
    postgres,
    modelRequestsPerTurn: t.model === 'openai-fake' ? round(run.modelRequests / turns, 2) : null,
    // The service's turns, warm-up included: the targets count from its start.
    rss: {
      earlyTurn: t.warmup + early.turn,
      earlyMb: mb(early.bytes),
      finalTurn: t.warmup + last.turn,
      finalMb: mb(last.bytes),
      changePct: round((100 * (last.bytes - early.bytes)) / early.bytes, 1),
      traceMb: run.trace.map((point) => ({ turn: point.turn, mb: mb(point.bytes) })),
    },
    failures: stats.failures,
    unexpectedReplies: stats.unexpected,
    sent: stats.sent,
    problems: stats.samples,
    checks,
    setupSeconds: round(run.setupSeconds, 1),
    machineBusyBeforePct,
    serverExitCode,
    ...(profile
      ? { profile: { ...profile, byFunction: profile.byFunction.slice(0, 60), repoInclusive: profile.repoInclusive.slice(0, 40) } }
      : {}),
  };
}

function summarise(values: readonly number[]): Latency {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
  return {
    p50: round(at(0.5), 2),
    p95: round(at(0.95), 2),
    p99: round(at(0.99), 2),
    max: round(sorted.at(-1) ?? NaN, 2),
    mean: round(mean, 2),
    count: sorted.length,
  };
}

export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
