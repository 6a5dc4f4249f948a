import { COMMAND, PARTIAL } from './chat-turn-plan';
import { type GroupFailure, type Result, round } from './chat-turn-results';
import { KINDS } from './support/load';
import { speedSentence, type SpeedReadings } from './support/machine-speed';

/**
 * The chat targets, stated as costs against the reference measured in the same run (they
 * replace four earlier targets, which two shared cores could not reach: docs/performance.md).
 */
const TARGETS = {
  postgresCpuFactor: 1.5,
  serverAndPostgresCpuFactor: 1.1,
  referenceThroughputFactor: 0.9,
  commitsPerOneToolTurn: 4,
  rssChangePct: 10,
  pgliteRssMb: 300,
} as const;

// ---------------------------------------------------------------- targets

export interface Verdict {
  readonly target: string;
  readonly configuration: string;
  readonly figure: string;
  readonly met: boolean | null;
}

export function verdicts(results: readonly Result[]): Verdict[] {
  const find = (id: string) => results.find((r) => r.id === id && !r.profiled);
  const list: Verdict[] = [];
  const add = (targetText: string, configuration: string, figure: string | undefined, met: boolean | undefined) =>
    list.push({ target: targetText, configuration, figure: figure ?? 'not run', met: met ?? null });

  // Side by side with the reference: the same fake model, PostgreSQL, one tool a turn.
  const bridle = find('bridle/openai-fake/postgres/add-only/c16');
  const reference = find('reference/openai-fake/postgres/add-only/c16');
  const pg = (r: Result | undefined) => r?.cpuMsPerTurn.postgres ?? null;
  const both = bridle && reference && pg(bridle) !== null && pg(reference) !== null ? { bridle, reference } : undefined;
  const ratio = (a: number, b: number) => round(a / b, 2);
  const id = 'bridle/openai-fake/postgres/add-only/c16';
  if (both) {
    const [b, r] = [pg(both.bridle)!, pg(both.reference)!];
    add(
      `PostgreSQL CPU per one-tool turn ≤ ${TARGETS.postgresCpuFactor}× the reference's`,
      id,
      `${b} vs ${r} ms (${ratio(b, r)}×)`,
      b <= TARGETS.postgresCpuFactor * r,
    );
    const [bs, rs] = [both.bridle.cpuMsPerTurn.server + b, both.reference.cpuMsPerTurn.server + r];
    add(
      `service + PostgreSQL CPU per turn ≤ ${TARGETS.serverAndPostgresCpuFactor}× the reference's`,
      id,
      `${round(bs, 2)} vs ${round(rs, 2)} ms (${ratio(bs, rs)}×)`,
      bs <= TARGETS.serverAndPostgresCpuFactor * rs,
    );
    add(
      `turns/s at c=16 ≥ ${TARGETS.referenceThroughputFactor}× the reference's`,
      id,
      `${both.bridle.turnsPerSecond} vs ${both.reference.turnsPerSecond} turns/s (${ratio(both.bridle.turnsPerSecond, both.reference.turnsPerSecond)}×)`,
      both.bridle.turnsPerSecond >= TARGETS.referenceThroughputFactor * both.reference.turnsPerSecond,
    );
  } else {
    for (const text of ['PostgreSQL CPU per one-tool turn', 'service + PostgreSQL CPU per turn', 'turns/s at c=16'])
      add(`${text} against the reference's`, id, undefined, undefined);
  }
  for (const c of [16, 1] as const) {
    for (const model of ['openai-fake', 'offline'] as const) {
      const id = `bridle/${model}/postgres/add-only/c${c}`;
      const bridle = find(id);
      add(
        `≤ ${TARGETS.commitsPerOneToolTurn} commits per one-tool turn`,
        id,
        bridle?.postgres ? `${bridle.postgres.commitsPerTurn} commits` : undefined,
        bridle?.postgres ? bridle.postgres.commitsPerTurn <= TARGETS.commitsPerOneToolTurn : undefined,
      );
    }
  }
  for (const database of ['postgres', 'pglite'] as const) {
    for (const model of ['offline', 'openai-fake'] as const) {
      for (const mix of ['mixed', 'add-only'] as const) {
        const id = `bridle/${model}/${database}/${mix}/c16`;
        const r = find(id);
        const rss = r && `${r.rss.earlyMb} MB @${r.rss.earlyTurn} → ${r.rss.finalMb} MB @${r.rss.finalTurn} (${signed(r.rss.changePct)} %)`;
        if (database === 'postgres') {
          add(
            `server RSS within ${TARGETS.rssChangePct} % from turn 1 000 to 10 000`,
            id,
            rss,
            // Judged only from a first reading at the service's turn 1 000 or before (TURNS_WARMUP=0).
            r && r.rss.earlyTurn <= 1_000 && r.rss.finalTurn >= 10_000 ? Math.abs(r.rss.changePct) <= TARGETS.rssChangePct : undefined,
          );
        } else {
          add(
            `PGlite RSS < ${TARGETS.pgliteRssMb} MB after 10 000 turns`,
            id,
            rss,
            r && r.rss.finalTurn >= 10_000 ? r.rss.finalMb < TARGETS.pgliteRssMb : undefined,
          );
        }
      }
    }
  }
  return list;
}

const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(1)}`;

// ---------------------------------------------------------------- report

export function label(r: Result): string {
  const model = r.model === 'offline' ? 'offline' : 'fake OpenAI';
  const database = r.database === 'postgres' ? 'PostgreSQL' : 'PGlite';
  return `${r.system === 'bridle' ? 'Bridle' : '**reference**'} · ${model} · ${database} · ${r.mix} · c=${r.concurrency}${r.profiled ? ' (under --cpu-prof)' : ''}`;
}

export const fixed = (value: number | null | undefined, digits = 2) =>
  value === null || value === undefined ? '—' : value.toFixed(digits);

export interface Meta {
  readonly date: string;
  readonly minutes: number;
  readonly commit: string;
  readonly dirty: readonly string[];
  readonly postgres: string | undefined;
  readonly node: string;
  readonly cpu: string;
  readonly machineSpeed: SpeedReadings;
}

export function markdown(results: readonly Result[], list: readonly Verdict[], failures: readonly GroupFailure[], meta: Meta): string {
  const lines: string[] = [
    '# Chat turns',
    '',
    `\`${COMMAND}\`${PARTIAL ? ' (a partial run: TURNS_* knobs set)' : ''}, ${meta.date}, ${meta.minutes.toFixed(1)} min; commit ${meta.commit}` +
      `${meta.dirty.length > 0 ? ` with uncommitted changes in ${meta.dirty.length} files under src/` : ''}; node ${meta.node}; ` +
      `PostgreSQL ${meta.postgres ?? '—'} (a private cluster on the same machine); ${meta.cpu}, shared with other engineers' work ` +
      '("other load": cores busy with processes that are not the benchmark\'s, on average while measuring). ' +
      speedSentence(meta.machineSpeed),
    '',
    'Turns: warm-up + measured. CPU in ms per measured turn. RSS of the service after the 1 000th measured turn and after the last. ' +
      'The reference and Bridle with the fake model on PostgreSQL, add-only, ran side by side, in alternating chunks.',
    '',
    '| configuration | turns | turns/s | p50 / p95 / p99 ms | server CPU | PostgreSQL CPU | statements / turn | commits / turn | RSS MB | other load |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    lines.push(
      `| ${label(r)} | ${r.warmupTurns} + ${r.measuredTurns} | ${r.turnsPerSecond.toFixed(0)} | ${fixed(r.latencyMs.p50, 1)} / ${fixed(r.latencyMs.p95, 1)} / ${fixed(r.latencyMs.p99, 1)} | ` +
        `${fixed(r.cpuMsPerTurn.server)} | ${r.database === 'postgres' ? fixed(r.cpuMsPerTurn.postgres) : 'in server'} | ` +
        `${r.postgres ? `${fixed(r.postgres.statementsPerTurn, 1)}${r.postgres.statementsComplete ? '' : ' (incomplete)'}` : '—'} | ${fixed(r.postgres?.commitsPerTurn)} | ` +
        `${r.rss.earlyMb.toFixed(0)} → ${r.rss.finalMb.toFixed(0)} | ${r.cores.other.toFixed(2)} |`,
    );
  }
  for (const failure of failures)
    lines.push(
      `| ${failure.ids.join(', ')} | ABORTED: ${failure.error.replace(/\|/g, '/').replace(/\s+/g, ' ').slice(0, 200)} | | | | | | | | |`,
    );
  lines.push(
    '',
    '## Targets (costs against the reference, and the earlier commits and memory targets)',
    '',
    '| target | configuration | measured | |',
    '|---|---|---|---|',
  );
  for (const v of list)
    lines.push(`| ${v.target} | ${v.configuration} | ${v.figure} | ${v.met === null ? 'not run' : v.met ? 'met' : '**missed**'} |`);

  const mixed = results.filter((r) => r.mix === 'mixed' && !r.profiled);
  if (mixed.length > 0) {
    lines.push(
      '',
      '## Mixed mix: p50 / p95 ms by message',
      '',
      `| configuration | ${KINDS.join(' | ')} |`,
      `|---|${KINDS.map(() => '---').join('|')}|`,
    );
    for (const r of mixed)
      lines.push(
        `| ${label(r)} | ${KINDS.map((kind) => `${fixed(r.latencyByKindMs[kind]?.p50, 1)} / ${fixed(r.latencyByKindMs[kind]?.p95, 1)}`).join(' | ')} |`,
      );
  }

  lines.push('', '## Where the CPU goes, ms per turn', '');
  lines.push(
    '| configuration | server | PostgreSQL (backends) | load generator | fake model | model requests / turn | PostgreSQL statement time | rows written / turn |',
  );
  lines.push('|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    lines.push(
      `| ${label(r)} | ${fixed(r.cpuMsPerTurn.server)} | ${r.cpuMsPerTurn.postgres === null ? '—' : `${fixed(r.cpuMsPerTurn.postgres)} (${fixed(r.cpuMsPerTurn.postgresBackends)})`} | ` +
        `${fixed(r.cpuMsPerTurn.loadGenerator)} | ${fixed(r.cpuMsPerTurn.fakeModel)} | ${fixed(r.modelRequestsPerTurn)} | ${fixed(r.postgres?.topLevelStatementMsPerTurn)} | ${fixed(r.postgres?.rowsWrittenPerTurn, 1)} |`,
    );
  }

  for (const id of [
    'bridle/openai-fake/postgres/add-only/c16',
    'reference/openai-fake/postgres/add-only/c16',
    'bridle/offline/postgres/mixed/c16',
  ]) {
    const r = results.find((candidate) => candidate.id === id && candidate.postgres);
    if (!r?.postgres) continue;
    const pg = r.postgres;
    lines.push(
      '',
      `## Statements: ${label(r)}`,
      '',
      `${fixed(pg.statementsPerTurn, 1)} statements a turn (${fixed(pg.topLevelStatementsPerTurn, 1)} sent by the service, ${fixed(pg.nestedStatementsPerTurn, 1)} inside triggers, functions and foreign-key checks), ` +
        `plus ${fixed(pg.transactionControlPerTurn, 1)} BEGIN / COMMIT / SAVEPOINT; ${fixed(pg.commitsPerTurn)} commits. The 20 with the most time (pg_stat_statements; a nested statement's time is also in its caller's):`,
      '',
      '| calls / turn | ms / turn | mean ms | level | statement |',
      '|---|---|---|---|---|',
    );
    for (const s of pg.topStatements) {
      lines.push(
        `| ${fixed(s.callsPerTurn)} | ${fixed(s.msPerTurn, 3)} | ${fixed(s.meanMs, 3)} | ${s.toplevel ? 'top' : 'nested'} | \`${s.query.replace(/\|/g, '\\|').replace(/`/g, "'").slice(0, 160)}\` |`,
      );
    }
  }
  const problems = results.filter((r) => r.failures > 0 || r.unexpectedReplies > 0 || r.checks.some((check) => !check.startsWith('ok')));
  if (problems.length > 0) {
    lines.push('', '## Problems', '');
    for (const r of problems) {
      lines.push(
        `- ${r.id}: ${r.failures} failed and ${r.unexpectedReplies} unexpected of ${r.sent} turns; ${[...r.checks, ...r.problems].join(' · ')}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
