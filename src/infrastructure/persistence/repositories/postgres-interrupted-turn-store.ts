import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ToolAuditEntry } from '../../../application/audit/ports/audit-log.port';
import { InterruptedTurnStore, type UnsettledToolCall } from '../../../application/chat/ports/interrupted-turn-store.port';
import type { SettledOutcome, TaskEvidence } from '../../../application/todo/tools/evidence';
import { exists, raw, run, selectRow, selectRows, sql, type Statement } from '../sql';
import { z } from 'zod';
import { AuditAppender } from '../tables/audit-log';
import { interruptedTurnDecisions } from '../tables/decision-logs';
import { IN_PROGRESS_STATUS } from '../tables/messages';
import { TASK_COLUMNS, TASK_ROW } from '../tables/tasks';

const PENDING_ROW = z.object({
  seq: z.coerce.number().int(),
  created_at: z.coerce.date(),
  source: z.enum(['chat', 'mcp', 'api']),
  actor_id: z.string(),
  conversation_id: z.string().nullable(),
  decision_id: z.string().nullable(),
  tool: z.string(),
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()]),
  security_events: z.array(z.object({ type: z.literal('IDENTITY_ARGUMENT_DISCARDED'), field: z.string() })),
});

const COUNTER_ROW = z.object({ task_counter: z.number() });
const CLAIMED_ROW = z.object({ number: z.number() });
const ID_ROW = z.object({ id: z.string() });

/** An audit row that is an outcome: it names its pending row. */
const outcomeOf = (pendingSeq: Statement | number) => sql`SELECT 1 FROM audit_log o WHERE o.pending_seq = ${pendingSeq}`;

/**
 * Leftovers of interrupted chat turns and MCP calls in PostgreSQL. An outcome is appended
 * only while holding the lock of the call's pending row and only if the call has none yet,
 * so of any number of sweepers exactly one settles each call. A call's
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
    const rows = await selectRows(
      this.dataSource,
      sql`SELECT p.seq, p.created_at, p.source, p.actor_id, p.conversation_id, p.decision_id, p.tool, p.arguments, p.security_events
          FROM audit_log p
          WHERE p.status = 'pending' AND p.seq > ${input.afterSeq} AND p.source IN ('chat', 'mcp', 'api') AND p.created_at < ${input.startedBefore}
            AND NOT EXISTS (${outcomeOf(raw('p.seq'))})
          ORDER BY p.seq LIMIT ${input.limit}`,
      PENDING_ROW,
    );
    return rows.map((row) => ({
      pendingSeq: row.seq,
      startedAt: row.created_at,
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
      // The check below must see every outcome committed before the lock was granted. An
      // outcome being written holds a key-share lock on its pending row (its foreign key), so
      // this lock waits for it; one written after waits for this transaction instead.
      await run(manager, sql`SET TRANSACTION ISOLATION LEVEL READ COMMITTED`);
      await run(manager, sql`SELECT 1 FROM audit_log WHERE seq = ${call.pendingSeq} FOR UPDATE`);
      if (await exists(manager, outcomeOf(call.pendingSeq))) return null;
      const userId = call.entry.actorId;
      const tasks = await selectRows(manager, sql`SELECT ${TASK_COLUMNS} FROM tasks WHERE user_id = ${userId} ORDER BY number`, TASK_ROW);
      const counter = await selectRow(manager, sql`SELECT task_counter FROM users WHERE id = ${userId}`, COUNTER_ROW);
      // The outcome of a succeeded add names its task (the tool's result, or this sweeper's).
      const claimed = await selectRows(
        manager,
        sql`SELECT DISTINCT (result->'task'->>'number')::int AS number FROM audit_log
            WHERE actor_id = ${userId} AND tool = 'add_task' AND status = 'succeeded' AND jsonb_typeof(result->'task'->'number') = 'number'`,
        CLAIMED_ROW,
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
    const rows = await selectRows(
      this.dataSource,
      sql`WITH m AS (
            UPDATE messages m SET content = ${input.content}, status = 'interrupted', decision_type = 'RESPOND_ONLY', created_at = ${input.now}
            WHERE m.status = ${IN_PROGRESS_STATUS} AND m.seq IN (
              SELECT s.seq FROM messages s
              WHERE s.status = ${IN_PROGRESS_STATUS} AND s.created_at < ${input.startedBefore}
                AND NOT EXISTS (SELECT 1 FROM audit_log p
                                WHERE p.decision_id = s.decision_id AND p.status = 'pending' AND NOT EXISTS (${outcomeOf(raw('p.seq'))}))
              ORDER BY s.created_at LIMIT ${input.limit} FOR UPDATE SKIP LOCKED)
            RETURNING m.id, m.decision_id),
          d AS (${interruptedTurnDecisions(sql`SELECT decision_id FROM m`, input.now)})
          SELECT id FROM m`,
      ID_ROW,
    );
    return rows.length;
  }
}
