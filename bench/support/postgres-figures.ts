import type { DatabaseStats, StatementStat } from './postgres-cluster';

export interface TopStatement {
  readonly query: string;
  readonly toplevel: boolean;
  readonly callsPerTurn: number;
  readonly msPerTurn: number;
  readonly meanMs: number;
}

export interface PostgresFigures {
  /** Statements that ran (pg_stat_statements calls), nested ones included, transaction control (BEGIN, COMMIT, SAVEPOINT…) not. */
  readonly statementsPerTurn: number;
  readonly topLevelStatementsPerTurn: number;
  readonly nestedStatementsPerTurn: number;
  readonly transactionControlPerTurn: number;
  readonly commitsPerTurn: number;
  readonly rollbacksPerTurn: number;
  readonly rowsWrittenPerTurn: number;
  /** Statement time (pg_stat_statements total_exec_time, wall clock inside the server) per turn; nested time is also in its caller's. */
  readonly topLevelStatementMsPerTurn: number;
  /** False when pg_stat_statements evicted entries during the run: the statement figures are then too low. */
  readonly statementsComplete: boolean;
  readonly topStatements: readonly TopStatement[];
}

export const TRANSACTION_CONTROL =
  /^\s*(BEGIN|START TRANSACTION|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE|PREPARE TRANSACTION|SET|RESET|SHOW|DISCARD|DEALLOCATE)\b/i;

/**
 * What PostgreSQL did for a run of turns, per turn: from two readings of pg_stat_statements
 * (Cluster.statements) and of pg_stat_database (Cluster.databaseStats). Shared by
 * bench:chat-turn and bench:replicas.
 */
export function postgresFigures(
  before: Map<string, StatementStat>,
  after: Map<string, StatementStat>,
  statsBefore: DatabaseStats,
  statsAfter: DatabaseStats,
  turns: number,
  complete: boolean,
): PostgresFigures {
  let topLevel = 0;
  let nested = 0;
  let control = 0;
  let topLevelMs = 0;
  const moved: (StatementStat & { readonly deltaCalls: number; readonly deltaMs: number })[] = [];
  for (const [key, stat] of after) {
    const calls = stat.calls - (before.get(key)?.calls ?? 0);
    const ms = stat.totalMs - (before.get(key)?.totalMs ?? 0);
    if (calls <= 0) continue;
    moved.push({ ...stat, deltaCalls: calls, deltaMs: ms });
    if (TRANSACTION_CONTROL.test(stat.query)) control += calls;
    else if (stat.toplevel) topLevel += calls;
    else nested += calls;
    if (stat.toplevel) topLevelMs += ms;
  }
  const per = (value: number, digits = 2) => round(value / turns, digits);
  return {
    statementsPerTurn: per(topLevel + nested),
    topLevelStatementsPerTurn: per(topLevel),
    nestedStatementsPerTurn: per(nested),
    transactionControlPerTurn: per(control),
    commitsPerTurn: per(statsAfter.commits - statsBefore.commits),
    rollbacksPerTurn: per(statsAfter.rollbacks - statsBefore.rollbacks),
    rowsWrittenPerTurn: per(statsAfter.rowsWritten - statsBefore.rowsWritten),
    topLevelStatementMsPerTurn: per(topLevelMs, 3),
    statementsComplete: complete,
    topStatements: moved
      .sort((a, b) => b.deltaMs - a.deltaMs)
      .slice(0, 20)
      .map((stat) => ({
        query: stat.query.replace(/\s+/g, ' ').trim().slice(0, 240),
        toplevel: stat.toplevel,
        callsPerTurn: per(stat.deltaCalls),
        msPerTurn: per(stat.deltaMs, 3),
        meanMs: round(stat.deltaMs / stat.deltaCalls, 3),
      })),
  };
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
