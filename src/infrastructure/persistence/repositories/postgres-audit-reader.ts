import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  AUDIT_SOURCES,
  type AuditFilter,
  AuditReader,
  type AuditRecord,
  type AuditSource,
  type ChainLink,
  type ChainVerification,
  type DecisionFilter,
  type DecisionRecord,
  type DecisionWithToolCalls,
  RECORDED_AUDIT_STATUSES,
  type RecordedAuditStatus,
} from '../../../application/audit/ports/audit-reader.port';
import type { Page } from '../../../application/shared/page';
import type { SignedCheckpoint } from '../../../domain/audit/checkpoint';
import { INTENT_TYPES, OUTCOME_CATEGORIES } from '../../../domain/agent/turn-outcome';
import { z } from 'zod';
import { decodeCursor, encodeCursor, isSeqCursor, isTimeAndIdCursor } from '../cursor';
import { join, raw, selectRow, selectRows, sql, type Statement } from '../sql';

/** An audit_log row as the admin API reads it; bigint columns come back as text. */
const AUDIT_ROW = z
  .object({
    seq: z.coerce.number().int(),
    created_at: z.coerce.date(),
    source: z.enum(AUDIT_SOURCES as [AuditSource, ...AuditSource[]]),
    actor_id: z.string(),
    actor_email: z.string().nullable(),
    conversation_id: z.string().nullable(),
    campaign_id: z.string().nullable(),
    outreach_task_id: z.string().nullable(),
    decision_id: z.string().nullable(),
    tool: z.string(),
    arguments: z.unknown(),
    status: z.enum(RECORDED_AUDIT_STATUSES as [RecordedAuditStatus, ...RecordedAuditStatus[]]),
    result: z.unknown(),
    error_code: z.string().nullable(),
    error_message: z.string().nullable(),
    duration_ms: z.number().nullable(),
    security_events: z.array(z.unknown()),
    pending_seq: z.coerce.number().int().nullable(),
    hash: z.string().nullable(),
    prev_hash: z.string().nullable(),
  })
  .transform((row): AuditRecord => ({
    seq: row.seq,
    createdAt: row.created_at,
    source: row.source,
    actorId: row.actor_id,
    actorEmail: row.actor_email,
    conversationId: row.conversation_id,
    campaignId: row.campaign_id,
    outreachTaskId: row.outreach_task_id,
    decisionId: row.decision_id,
    tool: row.tool,
    arguments: row.arguments,
    status: row.status,
    result: row.result,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    durationMs: row.duration_ms,
    securityEvents: row.security_events,
    pendingSeq: row.pending_seq,
    hash: row.hash,
    prevHash: row.prev_hash,
  }));

const DECISION_FIELDS = {
  id: z.string(),
  created_at: z.coerce.date(),
  /** The exact timestamp as text, for the page cursor: a Date would lose its microseconds. */
  created_key: z.string(),
  user_id: z.string(),
  actor_email: z.string().nullable(),
  conversation_id: z.string().nullable(),
  campaign_id: z.string().nullable(),
  outreach_task_id: z.string().nullable(),
  decision_type: z.string(),
  status: z.string(),
  iterations: z.number(),
  provider: z.string(),
  model: z.string(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  cost: z.coerce.number().nullable(),
  duration_ms: z.number(),
  failure_class: z.string().nullable(),
  provider_request_id: z.string().nullable(),
  message_id: z.string().nullable(),
  intent_type: z.enum(INTENT_TYPES).nullable(),
  outcome_category: z.enum(OUTCOME_CATEGORIES).nullable(),
  temperature: z.coerce.number().nullable(),
  max_tokens: z.number().nullable(),
};

function toDecisionRecord(row: z.output<z.ZodObject<typeof DECISION_FIELDS>>): DecisionRecord {
  return {
    id: row.id,
    createdAt: row.created_at,
    actorId: row.user_id,
    actorEmail: row.actor_email,
    conversationId: row.conversation_id,
    campaignId: row.campaign_id,
    outreachTaskId: row.outreach_task_id,
    decisionType: row.decision_type,
    status: row.status,
    iterations: row.iterations,
    provider: row.provider,
    model: row.model,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    cost: row.cost,
    durationMs: row.duration_ms,
    failureClass: row.failure_class,
    providerRequestId: row.provider_request_id,
    messageId: row.message_id,
    intentType: row.intent_type,
    outcomeCategory: row.outcome_category,
    temperature: row.temperature,
    maxTokens: row.max_tokens,
  };
}

const DECISION_ROW = z.object(DECISION_FIELDS);

/**
 * Audit rows (`a`) with their actor's email, read now from users (`u`): null once the account
 * is gone. Columns and conditions name their table, since users has an id and a created_at too.
 */
const AUDIT_COLUMNS = raw(`a.seq, a.created_at, a.source, a.actor_id, u.email AS actor_email, a.conversation_id, a.campaign_id,
  a.outreach_task_id, a.decision_id, a.tool, a.arguments, a.status, a.result, a.error_code, a.error_message, a.duration_ms, a.security_events,
  a.pending_seq, c.hash, c.prev_hash`);
/** With the row's link in the chain (`c`): none until the sealer has linked it. */
const AUDIT_FROM = raw(`audit_log a LEFT JOIN users u ON u.id = a.actor_id LEFT JOIN audit_chain c ON c.seq = a.seq`);
/** Decision rows (`d`) with their user's email, as for audit rows. */
const DECISION_COLUMNS = raw(`d.id, d.created_at, d.created_at::text AS created_key, d.user_id, u.email AS actor_email, d.conversation_id,
  d.campaign_id, d.outreach_task_id, d.decision_type, d.status, d.iterations, d.provider, d.model, d.prompt_tokens,
  d.completion_tokens, d.cost, d.duration_ms, d.failure_class, d.provider_request_id, d.message_id, d.intent_type, d.outcome_category,
  d.temperature, d.max_tokens`);
const DECISION_FROM = raw(`decision_logs d LEFT JOIN users u ON u.id = d.user_id`);
const GENESIS_HASH = '0'.repeat(64);
/** Rows per statement when exporting or verifying: bounded memory, few round trips. */
const EXPORT_BATCH = 500;
const VERIFY_BATCH = 2000;

/** `column op value` when the filter has a value, else nothing. */
const when = (value: unknown, condition: Statement): Statement | null => (value === undefined ? null : condition);

/** The conditions joined with AND; TRUE when there are none. */
function allOf(conditions: readonly (Statement | null)[]): Statement {
  const present = conditions.filter((condition): condition is Statement => condition !== null);
  return present.length === 0 ? sql`TRUE` : join(present, ' AND ');
}

function auditConditions(filter: AuditFilter): (Statement | null)[] {
  // Rows written before the names were one say confirmation_requested (see RecordedAuditStatus).
  const statuses = filter.status === 'confirmation_required' ? ['confirmation_required', 'confirmation_requested'] : [filter.status];
  return [
    when(filter.actorId, sql`a.actor_id = ${filter.actorId}`),
    // Emails are stored in lower case (normalizeEmail), so this compares without regard to case.
    when(filter.actorEmail, sql`u.email = lower(${filter.actorEmail})`),
    when(filter.source, sql`a.source = ${filter.source}`),
    when(filter.tool, sql`a.tool = ${filter.tool}`),
    when(filter.status, sql`a.status = ANY(${statuses}::text[])`),
    when(filter.conversationId, sql`a.conversation_id = ${filter.conversationId}`),
    when(filter.campaignId, sql`a.campaign_id = ${filter.campaignId}`),
    when(filter.decisionId, sql`a.decision_id = ${filter.decisionId}`),
    when(filter.from, sql`a.created_at >= ${filter.from}`),
    when(filter.to, sql`a.created_at < ${filter.to}`),
  ];
}

function decisionConditions(filter: DecisionFilter): (Statement | null)[] {
  return [
    when(filter.actorId, sql`d.user_id = ${filter.actorId}`),
    when(filter.status, sql`d.status = ${filter.status}`),
    when(filter.conversationId, sql`d.conversation_id = ${filter.conversationId}`),
    when(filter.campaignId, sql`d.campaign_id = ${filter.campaignId}`),
    when(filter.decisionId, sql`d.id = ${filter.decisionId}`),
    when(filter.from, sql`d.created_at >= ${filter.from}`),
    when(filter.to, sql`d.created_at < ${filter.to}`),
  ];
}

/** What the model was told in a chat turn, as decision_logs.context stores it. */
const TURN_CONTEXT = z.object({
  summaryId: z.string().nullable(),
  firstSeq: z.number().nullable(),
  lastSeq: z.number().nullable(),
  messages: z.number(),
  estimatedTokens: z.number(),
});

const CHAIN_ROW = z.object({
  position: z.coerce.number().int(),
  seq: z.coerce.number().int(),
  prev_hash: z.string(),
  hash: z.string(),
  intact: z.boolean().nullable(),
});
const CHAIN_HEAD_ROW = z.object({ head: z.coerce.number().int().nullable() });
/** Rows of audit_log that the chain does not hold: queued for the sealer, or in neither place (tampering). */
const UNCHAINED_ROW = z.object({
  unsealed: z.coerce.number().int(),
  strays: z.coerce.number().int(),
  first_stray: z.coerce.number().int().nullable(),
});
const LINK_ROW = z
  .object({ position: z.coerce.number().int(), seq: z.coerce.number().int(), hash: z.string() })
  .transform((row): ChainLink => row);
const CHECKPOINT_ROW = z
  .object({
    position: z.coerce.number().int(),
    seq: z.coerce.number().int(),
    head_hash: z.string(),
    created_at: z.coerce.date(),
    key_id: z.string(),
    public_key: z.string(),
    signature: z.string(),
  })
  .transform((row): SignedCheckpoint => ({
    position: row.position,
    seq: row.seq,
    headHash: row.head_hash,
    createdAt: row.created_at,
    keyId: row.key_id,
    publicKey: row.public_key,
    signature: row.signature,
  }));
const CHECKPOINT_COLUMNS = raw(`position, seq, head_hash, created_at, key_id, public_key, signature`);
/** Checkpoints per statement when listing them, and positions per look-up of links. */
const CHECKPOINT_BATCH = 500;
const LINKS_BATCH = 1000;

const DECISION_DETAIL_ROW = DECISION_ROW.extend({ context: TURN_CONTEXT.nullable(), summary: z.string().nullable() });
const HEAD_ROW = z.object({ head: z.coerce.number().int().nullable() });

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
    const rows = await selectRows(
      this.dataSource,
      sql`SELECT ${AUDIT_COLUMNS} FROM ${AUDIT_FROM} WHERE ${where} ORDER BY a.seq DESC LIMIT ${limit + 1}`,
      AUDIT_ROW,
    );
    const items = rows.slice(0, limit);
    return { items, nextCursor: rows.length > limit ? encodeCursor(String(items[items.length - 1].seq)) : null };
  }

  async get(seq: number): Promise<AuditRecord | null> {
    return selectRow(this.dataSource, sql`SELECT ${AUDIT_COLUMNS} FROM ${AUDIT_FROM} WHERE a.seq = ${seq}`, AUDIT_ROW);
  }

  async listDecisions(filter: DecisionFilter, limit: number, cursor: string | null): Promise<Page<DecisionRecord>> {
    const after = decodeCursor(cursor, isTimeAndIdCursor);
    const where = allOf([
      ...decisionConditions(filter),
      after && sql`(d.created_at, d.id) < (${after[0]}::timestamptz, ${after[1]}::uuid)`,
    ]);
    const rows = await selectRows(
      this.dataSource,
      sql`SELECT ${DECISION_COLUMNS} FROM ${DECISION_FROM} WHERE ${where}
          ORDER BY d.created_at DESC, d.id DESC LIMIT ${limit + 1}`,
      DECISION_ROW,
    );
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    return {
      items: items.map(toDecisionRecord),
      nextCursor: rows.length > limit ? encodeCursor([last.created_key, last.id]) : null,
    };
  }

  async getDecision(id: string): Promise<DecisionWithToolCalls | null> {
    const decision = await selectRow(
      this.dataSource,
      sql`SELECT ${DECISION_COLUMNS}, d.context,
                 (SELECT s.content FROM conversation_summaries s WHERE s.id = (d.context->>'summaryId')::uuid) AS summary
          FROM ${DECISION_FROM} WHERE d.id = ${id}`,
      DECISION_DETAIL_ROW,
    );
    if (!decision) return null;
    const toolCalls = await selectRows(
      this.dataSource,
      sql`SELECT ${AUDIT_COLUMNS} FROM ${AUDIT_FROM} WHERE a.decision_id = ${id} ORDER BY a.seq`,
      AUDIT_ROW,
    );
    return {
      ...toDecisionRecord(decision),
      context: decision.context && { ...decision.context, summary: decision.summary },
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
      const rows = await selectRows(
        this.dataSource,
        sql`SELECT ${AUDIT_COLUMNS} FROM ${AUDIT_FROM} WHERE ${where} ORDER BY a.seq LIMIT ${EXPORT_BATCH}`,
        AUDIT_ROW,
      );
      yield* rows;
      if (rows.length < EXPORT_BATCH) return;
      after = rows[rows.length - 1].seq;
    }
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
        sql`SELECT c.position, c.seq, c.prev_hash, c.hash, a.seq IS NOT NULL AND c.hash = audit_row_hash(c.prev_hash, a) AS intact
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
        sql`SELECT c.position, c.seq, c.prev_hash, c.hash, a.seq IS NOT NULL AND c.hash = audit_row_hash(c.prev_hash, a) AS intact
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
    // Every row is linked or waiting to be: one in neither place was slipped in around the
    // appender. From a checkpoint, only rows numbered above its row are looked at, so the
    // check reads the rows since it, not the whole log.
    const above = from?.seq ?? 0;
    const unchained = (await selectRow(
      this.dataSource,
      sql`SELECT (SELECT count(*) FROM audit_unsealed u
                  WHERE EXISTS (SELECT 1 FROM audit_log a WHERE a.seq = u.seq)
                    AND NOT EXISTS (SELECT 1 FROM audit_chain c WHERE c.seq = u.seq)) AS unsealed,
                 count(*) AS strays, min(a.seq) AS first_stray
          FROM audit_log a
          WHERE a.seq > ${above}::bigint
            AND NOT EXISTS (SELECT 1 FROM audit_chain c WHERE c.seq = a.seq)
            AND NOT EXISTS (SELECT 1 FROM audit_unsealed u WHERE u.seq = a.seq)`,
      UNCHAINED_ROW,
    ))!;
    if (unchained.first_stray !== null && (firstBadSeq === null || unchained.first_stray < firstBadSeq))
      firstBadSeq = unchained.first_stray;
    return { verified: firstBadSeq === null, checkedRows, firstBadSeq, headHash, unsealedRows: unchained.unsealed };
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
    const row = await selectRow(this.dataSource, sql`SELECT max(seq) AS head FROM audit_log`, HEAD_ROW);
    return row!.head;
  }
}
