import { cpus } from 'node:os';
import { EXTRA_ENV, LABEL, PRIVATE, round, WORKERS } from './outreach-cycles-config';
import type { PlansResult, StatementPlan } from './outreach-cycles-plans';
import type { RunResult } from './outreach-cycles-throughput';
import { speedSentence, type SpeedReadings } from './support/machine-speed';

// ---------------------------------------------------------------- report

export function markdown(
  runs: readonly RunResult[],
  plan: PlansResult | null,
  verdicts: Record<string, string>,
  started: string,
  settings: Record<string, string>,
  speed: SpeedReadings,
): string {
  const lines = [
    `# Outreach cycles on PostgreSQL${LABEL ? ` (${LABEL})` : ''}`,
    '',
    `\`node dist-bench/bench/outreach-cycles.js\`, ${started}; ${WORKERS} worker processes, offline planner, sandbox channels, ` +
      `PostgreSQL ${settings.server_version?.split(' ')[0] ?? ''} (${PRIVATE ? 'a private cluster' : 'the shared server'}) on the same ` +
      `${cpus().length}-core machine (${cpus()[0]?.model ?? '?'}), shared with other engineers' work (machine busy % below). ` +
      speedSentence(speed),
    '',
    '| tasks | done | s | tasks/s | PG CPU ms/cycle (kernel) | worker CPU ms/cycle (kernel) | statements/cycle | commits/cycle | buffers/cycle | rows read/cycle | cycle p50 / p95 ms | machine busy |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...runs.map(
      (r) =>
        `| ${r.tasks} | ${r.tasksFinished}${r.completed ? '' : ' (cut)'} | ${r.seconds} | ${r.tasksPerSecond} | ` +
        `${r.postgresMsPerCycle} (${r.postgresSystemMsPerCycle}) | ${r.workerMsPerCycle} (${r.workerSystemMsPerCycle}) | ` +
        `${r.statementsPerCycle} | ${r.commitsPerCycle} | ${r.buffersPerCycle} | ${r.rowsReadPerCycle} | ${r.cycleMs.p50} / ${r.cycleMs.p95} | ${r.machineBusyPct} % |`,
    ),
    '',
    'Tables read most per cycle (rows read sequentially / by index): ' +
      runs
        .map((r) => {
          const top = Object.entries(r.perTable)
            .sort(([, a], [, b]) => b.seqRowsPerCycle + b.indexRowsPerCycle - a.seqRowsPerCycle - a.indexRowsPerCycle)
            .slice(0, 4);
          return `${r.tasks} tasks: ${top.map(([table, t]) => `${table} ${t.seqRowsPerCycle} / ${t.indexRowsPerCycle}`).join(', ')}`;
        })
        .join('; ') +
      `. Statistics on outreach_tasks during the runs: ${runs.map((r) => (r.tasksAnalyzed ? 'analyzed' : 'none')).join(', ')}; ` +
      `server settings: ${Object.entries(settings)
        .map(([name, value]) => `${name} ${value}`)
        .join(', ')}` +
      `${
        Object.keys(EXTRA_ENV).length
          ? `; environment ${Object.entries(EXTRA_ENV)
              .map(([k, v]) => `${k}=${v}`)
              .join(' ')}`
          : ''
      }.`,
    '',
    `Targets: ${Object.entries(verdicts)
      .map(([name, verdict]) => `${name} ${verdict}`)
      .join('; ')}.`,
  ];
  for (const r of runs) {
    if (!r.cluster) continue;
    lines.push(
      '',
      `## What the statements cost per cycle, ${r.tasks} tasks (pg_stat_statements)`,
      '',
      `The whole cluster: ${r.cluster.cpuMsPerCycle} ms of CPU per cycle (background processes included); ` +
        `the statements the clients sent: ${r.cluster.executionMsPerCycle} ms of execution per cycle.`,
      '',
      '| statement | run by | calls/cycle | ms/cycle | ms/call |',
      '|---|---|---|---|---|',
      ...r.cluster.statements.map(
        (st) =>
          `| \`${st.query.replace(/\|/g, '\\|')}\` | ${st.nested ? 'a trigger or function' : 'a client'} | ${st.callsPerCycle} | ${st.msPerCycle} | ${st.msPerCall} |`,
      ),
    );
  }
  if (plan) {
    lines.push(
      '',
      `## EXPLAIN (ANALYZE, BUFFERS) of one cycle's ${plan.statementsInCycle} statements, campaign of ${plan.tasks} tasks`,
      '',
    );
    lines.push(
      '| statement | no statistics: ms / buffers / rows read | after ANALYZE: ms / buffers / rows read | scans (no statistics) |',
      '|---|---|---|---|',
    );
    const unused = [...plan.analyzed];
    for (const fresh of plan.fresh) {
      // The same statement of the other cycle (parallel reads may have run in another order).
      const index = unused.findIndex((analyzed) => analyzed.statement === fresh.statement);
      const [analyzed] = index >= 0 ? unused.splice(index, 1) : [undefined];
      const cell = (p?: StatementPlan) => (p ? `${p.ms} / ${p.buffers} / ${p.rowsRead}` : '—');
      lines.push(
        `| \`${fresh.statement.replace(/\|/g, '\\|')}\` | ${cell(fresh)} | ${cell(analyzed)} | ${[...fresh.scans, ...fresh.triggers.map((trigger) => `trigger ${trigger}`)].join('; ').replace(/\|/g, '\\|')} |`,
      );
    }
    const sum = (list: StatementPlan[], key: 'ms' | 'buffers' | 'rowsRead') =>
      round(
        list.reduce((total, p) => total + p[key], 0),
        2,
      );
    lines.push(
      `| **total** | ${sum(plan.fresh, 'ms')} / ${sum(plan.fresh, 'buffers')} / ${sum(plan.fresh, 'rowsRead')} | ` +
        `${sum(plan.analyzed, 'ms')} / ${sum(plan.analyzed, 'buffers')} / ${sum(plan.analyzed, 'rowsRead')} | |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
