import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { ToolAuditEnding, ToolAuditEntry, ToolAuditStatus } from '../../../application/audit/ports/audit-log.port';
import { Metrics } from '../../../application/shared/ports/metrics.port';
import { recordedToolName } from '../../../domain/agent/model-output';
import { redactText } from '../../../domain/audit/redaction';
import { storableText } from '../../../domain/shared/untrusted-input';
import { jsonColumn } from '../json-column';
import { AUDIT_RETENTION_FLOOR } from '../migrations/1768060800000-audit-erasure';
import { afterCommit, inTransaction, inUnitOfWork, join, raw, type Sql, selectRows, sql, type Statement } from '../sql';
import { z } from 'zod';

/** A pending row, or an outcome (an error code always with its sentence: ToolAuditOutcome). */
type AuditRowOutcome =
  | (ToolAuditEnding & { readonly durationMs?: number })
  | {
      readonly status: Extract<ToolAuditStatus, 'pending'>;
      readonly result?: undefined;
      readonly errorCode?: undefined;
      readonly errorMessage?: undefined;
      readonly durationMs?: undefined;
    };

/** bigserial comes back as text. */
const SEQ_ROW = z.object({ seq: z.coerce.number().int() });

/** Appends one audit row in the transaction it was handed. @returns the row's sequence number. */
export type AppendInTransaction = (entry: ToolAuditEntry, outcome: AuditRowOutcome, pendingSeq: number | null) => Promise<number>;

/** One row's columns, as the INSERT's parameters take them (redacted, bounded). */
type AuditRowValues = readonly [
  source: string,
  actorId: string,
  conversationId: string | null,
  campaignId: string | null,
  outreachTaskId: string | null,
  decisionId: string | null,
  tool: string,
  args: string,
  securityEvents: string,
  status: string,
  result: string | null,
  errorCode: string | null,
  errorMessage: string | null,
  durationMs: number | null,
  pendingSeq: number | null,
  policy: string | null,
];

/** An append waiting for the batch it will be written in. */
interface QueuedAppend {
  readonly values: AuditRowValues;
  readonly resolve: (seq: number) => void;
  readonly reject: (error: unknown) => void;
}

/** Per database: the appends not yet taken, and whether a statement is writing some. */
interface Lane {
  readonly queue: QueuedAppend[];
  writing: boolean;
}

/** The most rows one statement writes (each row's JSON is bounded by JSON_COLUMN_MAX_BYTES). */
const MAX_BATCH_ROWS = 100;

/**
 * Microtask turns the writer waits after answering a batch before it takes the next: enough
 * for a caller that appends again without other I/O in between (two are, in the benchmark's
 * loop), and nothing for one that awaits I/O first. Not a macrotask (setImmediate): an
 * in-process database (PGlite) answers in microtasks, and a caller looping over it would
 * hold a macrotask off for good.
 */
const ANSWERED_CALLERS_TURNS = 10;

/**
 * Appends audit rows: the one writer of audit_log, so that every caller (chat, MCP,
 * outreach, admin reads, the sweepers; inside or outside a transaction, or as a part of the
 * caller's own statement) produces the same rows, each queued for the sealer that chains
 * them (AuditChainSealer). Rows are counted for /metrics
 * once committed, so a rolled-back one never is.
 *
 * A row appended on its own (outside a unit of work: a tool's pending row, a refusal, an
 * admin read) is committed before its promise resolves, but not necessarily alone: rows that
 * arrive while the previous ones are being written wait and go together, one statement and
 * one commit for the lot (group commit). A lone row goes at once, so nothing waits on a
 * quiet service; under load, concurrent turns share a commit instead of each paying one. If
 * a batch fails, its rows are retried one by one, so a bad row fails only its own caller.
 *
 * One statement writes per database at a time, and after each it lets the callers it has
 * just answered run on before it takes the next batch, so that their next rows go with the
 * rows that queued meanwhile. Taking the next batch at once (or writing two at once) splits
 * steady writers into two halves that alternate, each batch half as large.
 */
@Injectable()
export class AuditAppender {
  /** Per database: the rows appended outside a unit of work, waiting for a writer. */
  private readonly waiting = new WeakMap<DataSource, Lane>();

  constructor(private readonly metrics: Metrics) {}

  /** One row on its own, or in the unit of work open around the call. @returns the row's sequence number. */
  async append(dataSource: DataSource, entry: ToolAuditEntry, outcome: AuditRowOutcome, pendingSeq: number | null): Promise<number> {
    const values = rowValues(entry, outcome, pendingSeq);
    if (inUnitOfWork(dataSource)) {
      const [seq] = await insert(dataSource, [values]);
      // Inside a unit of work (a tool's write and its outcome), counted once that commits.
      afterCommit(() => this.metrics.auditRowAppended(entry.source, outcome.status));
      return seq;
    }
    const seq = await this.inBatch(dataSource, values);
    this.metrics.auditRowAppended(entry.source, outcome.status);
    return seq;
  }

  /**
   * Runs `work` in a transaction of its own on `dataSource` (a unit of work, sql.ts
   * `inTransaction`), with `append` writing into it. Rows, `append`'s and `insertWhen`'s
   * alike, are counted once it commits. Its callers roll it back by throwing, so it never
   * joins a unit of work already open.
   */
  async transaction<T>(dataSource: DataSource, work: (manager: EntityManager, append: AppendInTransaction) => Promise<T>): Promise<T> {
    if (inUnitOfWork(dataSource)) throw new Error('AuditAppender.transaction opens its own transaction, not one inside a unit of work');
    return inTransaction(dataSource, (manager) =>
      work(manager, (entry, outcome, pendingSeq) => this.append(dataSource, entry, outcome, pendingSeq)),
    );
  }

  /**
   * One row as part of the caller's own statement: an INSERT for its WITH clause that writes
   * the row when `condition` holds (it may name the statement's other parts), so that an
   * effect and its audit row take one round trip and commit together, with or without a
   * transaction around them. Count the row with `counted` once the statement has run and wrote it.
   */
  insertWhen(condition: Statement, entry: ToolAuditEntry, outcome: AuditRowOutcome, pendingSeq: number | null): Statement {
    return sql`INSERT INTO audit_log (${COLUMNS}) ${oneRow(rowValues(entry, outcome, pendingSeq))} WHERE ${condition} RETURNING seq`;
  }

  /** Counts a row that `insertWhen` wrote, once its statement has committed. */
  counted(entry: ToolAuditEntry, outcome: AuditRowOutcome): void {
    afterCommit(() => this.metrics.auditRowAppended(entry.source, outcome.status));
  }

  /** Queues the row; it is written at once when no statement is writing, else with the next batch. */
  private inBatch(dataSource: DataSource, values: AuditRowValues): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      let lane = this.waiting.get(dataSource);
      if (!lane) this.waiting.set(dataSource, (lane = { queue: [], writing: false }));
      lane.queue.push({ values, resolve, reject });
      if (!lane.writing) void this.drain(dataSource, lane);
    });
  }

  private async drain(dataSource: DataSource, lane: Lane): Promise<void> {
    lane.writing = true;
    while (lane.queue.length > 0) {
      const batch = lane.queue.splice(0, MAX_BATCH_ROWS);
      try {
        const seqs = await insert(
          dataSource,
          batch.map((queued) => queued.values),
        );
        batch.forEach((queued, i) => queued.resolve(seqs[i]));
      } catch (error) {
        if (batch.length === 1) batch[0].reject(error);
        // One by one, in their order: a bad row fails only its own caller.
        else for (const queued of batch) await insert(dataSource, [queued.values]).then(([seq]) => queued.resolve(seq), queued.reject);
      }
      // Let the callers just answered run on: their next rows join those that queued meanwhile.
      for (let turn = 0; turn < ANSWERED_CALLERS_TURNS; turn++) await Promise.resolve();
    }
    lane.writing = false;
  }
}

function rowValues(entry: ToolAuditEntry, outcome: AuditRowOutcome, pendingSeq: number | null): AuditRowValues {
  return [
    entry.source,
    entry.actorId,
    entry.conversationId ?? null,
    entry.campaignId ?? null,
    entry.outreachTaskId ?? null,
    entry.decisionId ?? null,
    // A name from an MCP client is recorded as sent, made storable and bounded.
    recordedToolName(entry.tool),
    // Secrets never enter the table: masked here, by the domain's one policy.
    jsonColumn(entry.arguments),
    JSON.stringify(entry.securityEvents),
    outcome.status,
    outcome.result === undefined ? null : jsonColumn(outcome.result),
    outcome.errorCode ?? null,
    // Server sentences, but one may quote what a caller sent: masked by the same policy.
    outcome.errorMessage === undefined ? null : storableText(redactText(outcome.errorMessage)),
    outcome.durationMs ?? null,
    pendingSeq,
    entry.policy ? JSON.stringify(entry.policy) : null,
  ];
}

const COLUMNS = raw(
  'source, actor_id, conversation_id, campaign_id, outreach_task_id, decision_id, tool, arguments, security_events, status, result, error_code, error_message, duration_ms, pending_seq, policy',
);

/** One row as a SELECT of its values, each cast to its column's type. */
function oneRow(values: AuditRowValues): Statement {
  return sql`SELECT ${join(values.map((value, i) => sql`${value}::${raw(COLUMN_TYPES[i])}`))}`;
}

/**
 * Inserts the rows in one statement: one row as its values, several from arrays (one
 * statement text whatever their number, prepared once per connection; a lone row costs less
 * without them). @returns their sequence numbers, in the rows' order: the rows are inserted in
 * their given order, so their seqs, drawn in that order, ascend with it.
 */
async function insert(db: Sql, rows: readonly AuditRowValues[]): Promise<number[]> {
  // No lock: the table's statement trigger queues the rows for the sealer, which links them
  // into the chain later, in batches (migration 1766188800000).
  const statement =
    rows.length === 1
      ? sql`INSERT INTO audit_log (${COLUMNS}) ${oneRow(rows[0])} RETURNING seq`
      : sql`INSERT INTO audit_log (${COLUMNS})
            SELECT ${COLUMNS}
              FROM unnest(${join(
                COLUMN_TYPES.map((type, i) => sql`${rows.map((row) => row[i])}::${raw(type)}[]`),
              )}) WITH ORDINALITY AS r (${COLUMNS}, n)
             ORDER BY n
            RETURNING seq`;
  const inserted = await selectRows(db, statement, SEQ_ROW);
  return inserted.map((row) => row.seq).sort((a, b) => a - b);
}

/** The columns' types, in COLUMNS' order: a row's values and a batch's arrays are cast to them. */
const COLUMN_TYPES = [
  'text',
  'uuid',
  'uuid',
  'uuid',
  'uuid',
  'uuid',
  'text',
  'jsonb',
  'jsonb',
  'text',
  'jsonb',
  'text',
  'text',
  'integer',
  'bigint',
  'jsonb',
];

/** Whose audit rows an erasure empties: by actor, by outreach task, or by a text their personal fields hold (lower-cased). */
export interface AuditErasureTarget {
  readonly actorIds: readonly string[];
  readonly taskIds: readonly string[];
  readonly needles: readonly string[];
  /** Whose rows the needles may be found in (theirs and their campaigns'); null: anyone's (an admin's erasure). */
  readonly within: string | null;
}

/**
 * Empties the personal fields (arguments, result, error message) of the rows the target names,
 * stamps who erased them and when, and keeps each row's commitment, so its link still hashes
 * to it (migration 1768060800000: the only UPDATE the table accepts). An erasure's own rows
 * (`erasure.*`) hold no data and are never erased. Reads the whole table when there are
 * needles: an erasure is rare, and a mention may be in any row.
 */
export function eraseAuditRows(target: AuditErasureTarget, stamp: { readonly by: string; readonly at: Date }): Statement {
  return sql`UPDATE audit_log a
    SET arguments = '{}'::jsonb, result = NULL, error_message = NULL,
        personal_commitment = CASE WHEN a.personal_salt IS NULL THEN NULL ELSE audit_personal_commitment(a) END,
        personal_salt = NULL, erased_by = ${stamp.by}::uuid, erased_at = ${stamp.at}::timestamptz
    WHERE a.erased_at IS NULL AND a.tool NOT LIKE 'erasure.%'
      AND (a.actor_id = ANY(${target.actorIds}::uuid[]) OR a.outreach_task_id = ANY(${target.taskIds}::uuid[])
        OR (EXISTS (SELECT 1 FROM unnest(${target.needles}::text[]) n
                    WHERE strpos(lower(a.arguments::text || coalesce(a.result::text, '') || coalesce(a.error_message, '')), n) > 0)
            AND (${target.within}::uuid IS NULL OR a.actor_id = ${target.within}::uuid
                 OR a.campaign_id IN (SELECT id FROM campaigns WHERE owner_id = ${target.within}::uuid))))`;
}

/**
 * Records that the log is pruned up to the checkpoint at `position` (audit_pruned), if not already.
 */
export function pruneHorizon(position: number): Statement {
  return sql`INSERT INTO audit_pruned (position) VALUES (${position}::bigint) ON CONFLICT (position) DO NOTHING`;
}

/**
 * Deletes up to `limit` rows linked before the pruning horizon `position` and created before
 * `before`, oldest first, keeping a row an outcome row that stays still names (pending_seq).
 * The table's trigger refuses any other delete, and any row younger than six months.
 */
export function pruneAuditRows(position: number, before: Date, limit: number): Statement {
  return sql`DELETE FROM audit_log WHERE seq IN (
      SELECT a.seq FROM audit_chain c JOIN audit_log a ON a.seq = c.seq
      WHERE c.position < ${position}::bigint AND a.created_at < ${before}::timestamptz AND a.created_at < now() - ${raw(AUDIT_RETENTION_FLOOR)}
        AND NOT EXISTS (SELECT 1 FROM audit_log o WHERE o.pending_seq = a.seq
          AND NOT (o.created_at < ${before}::timestamptz AND EXISTS (SELECT 1 FROM audit_chain oc WHERE oc.seq = o.seq AND oc.position < ${position}::bigint)))
      ORDER BY c.position LIMIT ${limit})`;
}
