import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  type AuditFilter,
  AuditReader,
  type AuditRecord,
  type ChainLink,
  type ChainVerification,
  type DecisionFilter,
  type DecisionRecord,
  type DecisionWithToolCalls,
  type RecordedToolCall,
} from '../../../application/audit/ports/audit-reader.port';
import type { Page } from '../../../application/shared/page';
import { AuditRowUnreadableError } from '../../../domain/audit/audit-errors';
import type { SignedCheckpoint } from '../../../domain/audit/checkpoint';
import { z } from 'zod';
import { CHECKPOINT_COLUMNS, CHECKPOINT_ROW } from '../tables/audit-checkpoints';
import { firstUnexplainedErasure } from '../tables/audit-erasures';
import { decodeCursor, encodeCursor, isSeqCursor, isTimeAndIdCursor } from '../cursor';
import { selectRow, selectRows, sql, type Statement, UnexpectedRowError } from '../sql';
import {
  allOf,
  AUDIT_COLUMNS,
  AUDIT_FROM,
  AUDIT_ROW,
  auditConditions,
  LAST_NUMBER,
  NUMBERED,
  DECISION_COLUMNS,
  DECISION_DETAIL_ROW,
  DECISION_FROM,
  DECISION_ROW,
  decisionConditions,
  TOOL_CALL_ROW,
  toDecisionRecord,
  when,
} from './postgres-audit-reader/records';

const GENESIS_HASH = '0'.repeat(64);
/** Rows per statement when exporting or verifying: bounded memory, few round trips. */
const EXPORT_BATCH = 500;
const VERIFY_BATCH = 2000;

/*
 * Verify reads numbers as the database holds them, whole but not necessarily within 2^53: a link
 * or row the owner numbered far outside the log must be reported, not fail the read.
 */
const CHAIN_ROW = z.object({
  position: z.coerce.number(),
  seq: z.coerce.number(),
  prev_hash: z.string(),
  hash: z.string(),
  intact: z.boolean().nullable(),
});
const CHAIN_HEAD_ROW = z.object({ head: z.coerce.number().nullable() });
/** Rows queued for the sealer, and the lowest seq of a row or link outside the log (tampering). */
const UNACCOUNTED_ROW = z.object({
  unsealed: z.coerce.number().int(),
  first_outside: z.coerce.number().nullable(),
});
const LINK_ROW = z
  .object({ position: z.coerce.number().int(), seq: z.coerce.number().int(), hash: z.string() })
  .transform((row): ChainLink => row);
/** Links per statement when verify rebuilds the Merkle tree. */
const LINK_HASHES_BATCH = 10_000;
/** Checkpoints per statement when listing them, and positions per look-up of links. */
const CHECKPOINT_BATCH = 500;
const LINKS_BATCH = 1000;

const SEQ_OR_NONE_ROW = z.object({ seq: z.coerce.number().nullable() });
const HEAD_ROW = z.object({ head: z.coerce.number().int().nullable() });

/**
 * A link holds when its row is there and hashes to it, with the same SQL function the sealer
 * used: a row of the new form by its public fields and its commitment, erased or not. A row
 * written before migration 1768060800000 and erased since is accepted by its stored link
 * alone: its hash cannot be recomputed without the fields erased, but the walk still checks
 * that the link follows the one before and that the next one names its hash
 * (docs/decisions/0017-erasure-and-retention.md).
 */
const INTACT = sql`a.seq IS NOT NULL AND (c.hash = audit_row_hash(c.prev_hash, a)
  OR (a.erased_at IS NOT NULL AND a.personal_salt IS NULL AND a.personal_commitment IS NULL))`;

/**
 * Reads audit_log and decision_logs for admins. Pages and exports go by seq, the order rows
 * were numbered in; appends take no lock (migration 1766188800000), so a row numbered just
 * below the newest can commit a few milliseconds after it, and a page read in that window
 * does not show it yet. The chain (audit_chain) is in the order the sealer found rows
 * committed, and verify walks it by position.
 */
@Injectable()
export class PostgresAuditReader extends AuditReader {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async list(filter: AuditFilter, limit: number, cursor: string | null): Promise<Page<AuditRecord>> {
    const before = decodeCursor(cursor, isSeqCursor);
    const where = allOf([...auditConditions(filter), when(before ?? undefined, sql`a.seq < ${before}::bigint`)]);
    const rows = await readable(
      selectRows(
        this.dataSource,
        sql`SELECT ${AUDIT_COLUMNS} FROM ${AUDIT_FROM} WHERE ${where} ORDER BY a.seq DESC LIMIT ${limit + 1}`,
        AUDIT_ROW,
      ),
    );
    const items = rows.slice(0, limit);
    return { items, nextCursor: rows.length > limit ? encodeCursor(String(items[items.length - 1].seq)) : null };
  }

  async get(seq: number): Promise<AuditRecord | null> {
    return readable(
      selectRow(this.dataSource, sql`SELECT ${AUDIT_COLUMNS} FROM ${AUDIT_FROM} WHERE a.seq = ${seq} AND ${NUMBERED}`, AUDIT_ROW),
    );
  }

  async listDecisions(filter: DecisionFilter, limit: number, cursor: string | null): Promise<Page<DecisionRecord>> {
    const after = decodeCursor(cursor, isTimeAndIdCursor);
    const where = allOf([
      ...decisionConditions(filter),
      after && sql`(d.created_at, d.id) < (${after[0]}::timestamptz, ${after[1]}::uuid)`,
    ]);
    const rows = await readable(
      selectRows(
        this.dataSource,
        sql`SELECT ${DECISION_COLUMNS} FROM ${DECISION_FROM} WHERE ${where}
            ORDER BY d.created_at DESC, d.id DESC LIMIT ${limit + 1}`,
        DECISION_ROW,
      ),
    );
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    return {
      items: items.map(toDecisionRecord),
      nextCursor: rows.length > limit ? encodeCursor([last.created_key, last.id]) : null,
    };
  }

  async getDecision(id: string): Promise<DecisionWithToolCalls | null> {
    const decision = await readable(
      selectRow(
        this.dataSource,
        // The person's message: the one stored just before the turn's answer (found by its
        // decision, messages_decision_idx), in the same conversation (messages_conversation_seq_idx).
        sql`SELECT ${DECISION_COLUMNS}, d.context,
                 (SELECT s.content FROM conversation_summaries s WHERE s.id = (d.context->>'summaryId')::uuid) AS summary,
                 (SELECT json_build_object('id', q.id, 'content', q.content, 'createdAt', q.created_at)
                  FROM messages a CROSS JOIN LATERAL (
                    SELECT p.id, p.content, p.created_at FROM messages p
                    WHERE p.conversation_id = a.conversation_id AND p.seq < a.seq ORDER BY p.seq DESC LIMIT 1) q
                  WHERE a.decision_id = d.id AND q.id = d.message_id) AS message
          FROM ${DECISION_FROM} WHERE d.id = ${id}`,
        DECISION_DETAIL_ROW,
      ),
    );
    if (!decision) return null;
    const toolCalls = await readable(
      selectRows(
        this.dataSource,
        sql`SELECT ${AUDIT_COLUMNS} FROM ${AUDIT_FROM} WHERE a.decision_id = ${id} AND ${NUMBERED} ORDER BY a.seq`,
        AUDIT_ROW,
      ),
    );
    return {
      ...toDecisionRecord(decision),
      context: decision.context && { ...decision.context, summary: decision.summary },
      message: decision.message,
      toolCalls,
    };
  }

  async *export(filter: AuditFilter): AsyncIterable<AuditRecord> {
    const head = await this.head();
    if (head === null) return;
    let after = 0;
    for (;;) {
      // One statement per batch, no transaction held open: other requests (and PGlite's
      // single connection) are never blocked for the length of an export.
      const where = allOf([...auditConditions(filter), sql`a.seq <= ${head}::bigint`, sql`a.seq > ${after}::bigint`]);
      const rows = await readable(
        selectRows(
          this.dataSource,
          sql`SELECT ${AUDIT_COLUMNS} FROM ${AUDIT_FROM} WHERE ${where} ORDER BY a.seq LIMIT ${EXPORT_BATCH}`,
          AUDIT_ROW,
        ),
      );
      yield* rows;
      if (rows.length < EXPORT_BATCH) return;
      after = rows[rows.length - 1].seq;
    }
  }

  recentToolCalls(limit: number): Promise<RecordedToolCall[]> {
    // Newest first down the primary key, stopping at `limit` rows: an outcome row (pending_seq
    // set) is the second row of a call already counted by its pending row, and admin and
    // account rows are no tool calls. Their rows interleave with the calls' and are skipped as
    // the scan meets them; no index is added for it, so appends pay nothing for dry runs.
    return readable(
      selectRows(
        this.dataSource,
        sql`SELECT a.seq, a.created_at, a.source, a.actor_id, u.email AS actor_email, u.role AS actor_role, a.tool, a.arguments, a.status,
            (a.policy ->> 'items')::int AS items
          FROM audit_log a LEFT JOIN users u ON u.id = a.actor_id
          WHERE a.source IN ('chat', 'mcp', 'outreach') AND a.pending_seq IS NULL AND ${NUMBERED}
          ORDER BY a.seq DESC LIMIT ${limit}`,
        TOOL_CALL_ROW,
      ),
    );
  }

  async verify(from?: ChainLink): Promise<ChainVerification> {
    const head = (await selectRow(this.dataSource, sql`SELECT max(position) AS head FROM audit_chain`, CHAIN_HEAD_ROW))!.head;
    let previous = GENESIS_HASH;
    let after = 0;
    let checkedRows = 0;
    let firstBadSeq: number | null = null;
    let headHash: string | null = null;
    if (from !== undefined) {
      // The checkpoint's link: still its row's, with the signed hash, and that hash still its
      // row's. Its prev_hash cannot be checked without walking the links before it; a forged
      // one would have to hash with the row to the signed hash.
      const start = await selectRow(
        this.dataSource,
        sql`SELECT c.position, c.seq, c.prev_hash, c.hash, ${INTACT} AS intact
            FROM audit_chain c LEFT JOIN audit_log a ON a.seq = c.seq WHERE c.position = ${from.position}::bigint`,
        CHAIN_ROW,
      );
      checkedRows = 1;
      if (start === null || start.seq !== from.seq || start.hash !== from.hash || start.intact !== true) firstBadSeq = from.seq;
      previous = from.hash;
      headHash = from.hash;
      after = from.position;
    }
    while (head !== null && head > after) {
      // The hash is recomputed by the same SQL function the sealer used; a link whose row is
      // gone (deleted around the triggers) fails.
      const rows = await selectRows(
        this.dataSource,
        sql`SELECT c.position, c.seq, c.prev_hash, c.hash, ${INTACT} AS intact
            FROM audit_chain c LEFT JOIN audit_log a ON a.seq = c.seq
            WHERE c.position > ${after}::bigint AND c.position <= ${head}::bigint ORDER BY c.position LIMIT ${VERIFY_BATCH}`,
        CHAIN_ROW,
      );
      for (const row of rows) {
        checkedRows += 1;
        const linked = row.position === after + 1 && row.prev_hash === previous && row.intact === true;
        if (firstBadSeq === null && !linked) firstBadSeq = row.seq;
        previous = row.hash;
        headHash = row.hash;
        after = row.position;
      }
      if (rows.length < VERIFY_BATCH) break;
    }
    const unaccounted = (await selectRow(this.dataSource, accountFor(from), UNACCOUNTED_ROW))!;
    if (unaccounted.first_outside !== null && (firstBadSeq === null || unaccounted.first_outside < firstBadSeq))
      firstBadSeq = unaccounted.first_outside;
    return { verified: firstBadSeq === null, checkedRows, firstBadSeq, headHash, unsealedRows: unaccounted.unsealed };
  }

  prunedBefore(): Promise<SignedCheckpoint | null> {
    return selectRow(
      this.dataSource,
      sql`SELECT ${CHECKPOINT_COLUMNS} FROM audit_checkpoints WHERE position = (SELECT max(position) FROM audit_pruned)`,
      CHECKPOINT_ROW,
    );
  }

  async firstUnexplainedErasure(afterSeq: number): Promise<number | null> {
    return (await selectRow(this.dataSource, firstUnexplainedErasure(afterSeq), SEQ_OR_NONE_ROW))!.seq;
  }

  latestCheckpoint(): Promise<SignedCheckpoint | null> {
    return selectRow(
      this.dataSource,
      sql`SELECT ${CHECKPOINT_COLUMNS} FROM audit_checkpoints ORDER BY position DESC LIMIT 1`,
      CHECKPOINT_ROW,
    );
  }

  async *checkpoints(): AsyncIterable<SignedCheckpoint> {
    let after = 0;
    for (;;) {
      const rows = await selectRows(
        this.dataSource,
        sql`SELECT ${CHECKPOINT_COLUMNS} FROM audit_checkpoints WHERE position > ${after}::bigint ORDER BY position LIMIT ${CHECKPOINT_BATCH}`,
        CHECKPOINT_ROW,
      );
      yield* rows;
      if (rows.length < CHECKPOINT_BATCH) return;
      after = rows[rows.length - 1].position;
    }
  }

  checkpointAt(position: number): Promise<SignedCheckpoint | null> {
    return selectRow(
      this.dataSource,
      sql`SELECT ${CHECKPOINT_COLUMNS} FROM audit_checkpoints WHERE position = ${position}::bigint`,
      CHECKPOINT_ROW,
    );
  }

  async *links(): AsyncIterable<ChainLink> {
    let after = 0;
    for (;;) {
      const rows = await selectRows(
        this.dataSource,
        sql`SELECT position, seq, hash FROM audit_chain WHERE position > ${after}::bigint ORDER BY position LIMIT ${LINK_HASHES_BATCH}`,
        LINK_ROW,
      );
      yield* rows;
      if (rows.length < LINK_HASHES_BATCH) return;
      after = rows[rows.length - 1].position;
    }
  }

  async linksAt(positions: readonly number[]): Promise<ReadonlyMap<number, ChainLink>> {
    const links = new Map<number, ChainLink>();
    for (let i = 0; i < positions.length; i += LINKS_BATCH) {
      const batch = positions.slice(i, i + LINKS_BATCH);
      const rows = await selectRows(
        this.dataSource,
        sql`SELECT position, seq, hash FROM audit_chain WHERE position = ANY(${batch}::bigint[])`,
        LINK_ROW,
      );
      for (const row of rows) links.set(row.position, row);
    }
    return links;
  }

  private async head(): Promise<number | null> {
    const row = await selectRow(this.dataSource, sql`SELECT max(a.seq) AS head FROM audit_log a WHERE ${NUMBERED}`, HEAD_ROW);
    return row!.head;
  }
}

/**
 * A read of rows for an admin, where a row that is not of a shape Bridle writes (changed by the
 * tables' owner outside Bridle) is refused as such (409 AUDIT.ROW_UNREADABLE), not as a fault
 * of the server: the one mechanism for every column the row schemas check.
 */
async function readable<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof UnexpectedRowError) throw new AuditRowUnreadableError();
    throw error;
  }
}

/**
 * Every row accounted for (docs/audit-log.md): the rows queued for the sealer, and the lowest
 * seq of a row or link that breaks the rule AUDIT_ROW_PLACE states row by row, here set by set
 * so that a full verify pays a few scans, not look-ups per row: a row numbered outside 1 …
 * 2^53 − 1; two rows of one number; a row neither linked nor queued, or both; a row linked
 * twice; a link outside the positions (one at position 0 is never reached by a walk from 1).
 * From a checkpoint, only the rows numbered after its row and the links after it are looked
 * at (and anything outside the numbering), so the check reads what came since, not the log.
 */
function accountFor(from: ChainLink | undefined): Statement {
  const after = from?.seq ?? 0;
  const afterPosition = from?.position ?? 0;
  return sql`
    SELECT (SELECT count(*) FROM audit_unsealed u
            WHERE EXISTS (SELECT 1 FROM audit_log a WHERE a.seq = u.seq)
              AND NOT EXISTS (SELECT 1 FROM audit_chain c WHERE c.seq = u.seq)) AS unsealed,
           LEAST(
             (SELECT min(a.seq) FROM audit_log a WHERE NOT (${NUMBERED})),
             (SELECT min(c.seq) FROM audit_chain c WHERE c.position NOT BETWEEN 1 AND ${LAST_NUMBER}::bigint),
             (SELECT min(seq) FROM (SELECT a.seq FROM audit_log a WHERE a.seq > ${after}::bigint GROUP BY a.seq HAVING count(*) > 1) twins),
             (SELECT min(a.seq) FROM audit_log a
              WHERE a.seq > ${after}::bigint
                AND NOT EXISTS (SELECT 1 FROM audit_chain c WHERE c.seq = a.seq)
                AND NOT EXISTS (SELECT 1 FROM audit_unsealed u WHERE u.seq = a.seq)),
             (SELECT min(u.seq) FROM audit_unsealed u JOIN audit_chain c ON c.seq = u.seq),
             (SELECT min(c.seq) FROM audit_chain c
              WHERE c.position > ${afterPosition}::bigint
                AND EXISTS (SELECT 1 FROM audit_chain d WHERE d.seq = c.seq AND d.position <> c.position))
           ) AS first_outside`;
}
