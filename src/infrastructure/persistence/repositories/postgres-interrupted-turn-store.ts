import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ToolAuditEntry } from '../../../application/agent/ports/audit-log.port';
import { InterruptedTurnStore, type UnsettledToolCall } from '../../../application/chat/ports/interrupted-turn-store.port';
import type { SettledOutcome, TaskEvidence } from '../../../application/todo/tools/tool-call-evidence';
import type { SecurityEvent, ToolArguments } from '../../../domain/agent/tool-call-validation';
import { AUDIT_CHAIN_LOCK } from '../migrations/1764115200000-audit-chain';
import { AuditAppender } from './postgres-audit-log';
import { selectRows, sql } from '../sql';
import { TASK_COLUMNS, TASK_ROW } from './postgres-task.repository';
import { IN_PROGRESS } from './postgres-conversation-store';

interface PendingRow {
  seq: string;
  created_at: Date;
  source: 'chat' | 'mcp';
  actor_id: string;
  conversation_id: string | null;
  decision_id: string | null;
  tool: string;
  arguments: ToolArguments | string;
  security_events: SecurityEvent[];
}

/** An audit row that is an outcome: it names its pending row. */
const OUTCOME_OF = (pending: string) => `SELECT 1 FROM audit_log o WHERE o.pending_seq = ${pending}`;

/**
 * Leftovers of interrupted chat turns and MCP calls in PostgreSQL. An outcome is appended
 * only while holding the audit chain's lock (the one every append takes) and only if the
 * call has none yet, so of any number of sweepers exactly one settles each call. A call's
 * own process answering after its deadline still appends what really happened, after.
 */
@Injectable()
export class PostgresInterruptedTurnStore extends InterruptedTurnStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly appender: AuditAppender,
  ) {
    super();
  }

  async unsettledToolCalls(input: { startedBefore: Date; afterSeq: number; limit: number }): Promise<UnsettledToolCall[]> {
    const rows = await this.dataSource.query<PendingRow[]>(
      `SELECT p.seq, p.created_at, p.source, p.actor_id, p.conversation_id, p.decision_id, p.tool, p.arguments, p.security_events
       FROM audit_log p
       WHERE p.status = 'pending' AND p.seq > $2 AND p.source IN ('chat', 'mcp') AND p.created_at < $1
         AND NOT EXISTS (${OUTCOME_OF('p.seq')})
       ORDER BY p.seq LIMIT $3`,
      [input.startedBefore, input.afterSeq, input.limit],
    );
    return rows.map((row) => ({
      pendingSeq: Number(row.seq),
      startedAt: new Date(row.created_at),
      entry: {
        source: row.source,
        actorId: row.actor_id,
        ...(row.conversation_id === null ? {} : { conversationId: row.conversation_id }),
        ...(row.decision_id === null ? {} : { decisionId: row.decision_id }),
        tool: row.tool,
        arguments: row.arguments,
        securityEvents: row.security_events,
      } satisfies ToolAuditEntry,
    }));
  }

  settleToolCall(call: UnsettledToolCall, decide: (evidence: TaskEvidence) => SettledOutcome): Promise<SettledOutcome | null> {
    return this.appender.transaction(this.dataSource, async (manager, append) => {
      // The check below must see every outcome committed before the lock was granted.
      await manager.query(`SET TRANSACTION ISOLATION LEVEL READ COMMITTED`);
      await manager.query(`SELECT pg_advisory_xact_lock($1)`, [AUDIT_CHAIN_LOCK]);
      const settled = await manager.query<unknown[]>(OUTCOME_OF('$1'), [call.pendingSeq]);
      if (settled.length > 0) return null;
      const userId = call.entry.actorId;
      const tasks = await selectRows(manager, sql`SELECT ${TASK_COLUMNS} FROM tasks WHERE user_id = ${userId} ORDER BY number`, TASK_ROW);
      const [counter] = await manager.query<{ task_counter: number }[]>(`SELECT task_counter FROM users WHERE id = $1`, [userId]);
      // The outcome of a succeeded add names its task (the tool's result, or this sweeper's).
      const claimed = await manager.query<{ number: number }[]>(
        `SELECT DISTINCT (result->'task'->>'number')::int AS number FROM audit_log
         WHERE actor_id = $1 AND tool = 'add_task' AND status = 'succeeded' AND jsonb_typeof(result->'task'->'number') = 'number'`,
        [userId],
      );
      const outcome = decide({
        tasks,
        lastTaskNumber: counter?.task_counter ?? 0,
        claimedTaskNumbers: new Set(claimed.map((row) => row.number)),
      });
      // No duration: nobody timed the call.
      await append(call.entry, { ...outcome, durationMs: 0 }, call.pendingSeq);
      return outcome;
    });
  }

  async answerInterruptedTurns(input: { startedBefore: Date; content: string; now: Date; limit: number }): Promise<number> {
    // SKIP LOCKED: a row another sweeper is answering is its business; the status check on
    // the row itself makes a second answer impossible anyway.
    // The turn's decision row, pending since it started, says the same in the same statement.
    const rows = await this.dataSource.query<{ id: string }[]>(
      `WITH m AS (
         UPDATE messages m SET content = $2, status = 'interrupted', decision_type = 'RESPOND_ONLY', created_at = $3
         WHERE m.status = '${IN_PROGRESS}' AND m.id IN (
           SELECT s.id FROM messages s
           WHERE s.status = '${IN_PROGRESS}' AND s.created_at < $1
             AND NOT EXISTS (SELECT 1 FROM audit_log p
                             WHERE p.decision_id = s.decision_id AND p.status = 'pending' AND NOT EXISTS (${OUTCOME_OF('p.seq')}))
           ORDER BY s.created_at LIMIT $4 FOR UPDATE SKIP LOCKED)
         RETURNING m.id, m.decision_id),
       d AS (
         UPDATE decision_logs SET status = 'interrupted', decision_type = 'RESPOND_ONLY',
           duration_ms = least(floor(extract(epoch FROM $3::timestamptz - created_at) * 1000), 2147483647)::int
         WHERE id IN (SELECT decision_id FROM m) AND status = 'pending')
       SELECT id FROM m`,
      [input.startedBefore, input.content, input.now, input.limit],
    );
    return rows.length;
  }
}
