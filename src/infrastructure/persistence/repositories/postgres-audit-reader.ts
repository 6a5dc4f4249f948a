import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ToolAuditStatus } from '../../../application/agent/ports/audit-log.port';
import {
  type AuditFilter,
  AuditReader,
  type AuditRecord,
  type AuditSource,
  type ChainVerification,
  type DecisionFilter,
  type DecisionRecord,
  type DecisionWithToolCalls,
  type TurnContextView,
} from '../../../application/audit/ports/audit-reader.port';
import type { Page } from '../../../application/shared/page';
import { decodeCursor, encodeCursor, isSeqCursor, isTimeAndIdCursor } from '../cursor';

interface AuditRow {
  seq: string;
  created_at: Date | string;
  source: AuditSource;
  actor_id: string;
  conversation_id: string | null;
  campaign_id: string | null;
  outreach_task_id: string | null;
  decision_id: string | null;
  tool: string;
  arguments: unknown;
  status: ToolAuditStatus;
  result: unknown;
  error_code: string | null;
  duration_ms: number | null;
  security_events: unknown[];
  pending_seq: string | null;
  hash: string;
  prev_hash: string;
}

interface DecisionRow {
  id: string;
  created_at: Date | string;
  created_key: string;
  user_id: string;
  conversation_id: string | null;
  campaign_id: string | null;
  outreach_task_id: string | null;
  decision_type: string;
  status: string;
  iterations: number;
  provider: string;
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
  cost: string | null;
  duration_ms: number;
  failure_class: string | null;
  provider_request_id: string | null;
}

const AUDIT_COLUMNS = `seq, created_at, source, actor_id, conversation_id, campaign_id, outreach_task_id, decision_id, tool,
  arguments, status, result, error_code, duration_ms, security_events, pending_seq, hash, prev_hash`;
const DECISION_COLUMNS = `id, created_at, created_at::text AS created_key, user_id, conversation_id, campaign_id, outreach_task_id,
  decision_type, status, iterations, provider, model, prompt_tokens, completion_tokens, cost, duration_ms, failure_class,
  provider_request_id`;
const GENESIS_HASH = '0'.repeat(64);
/** Rows per statement when exporting or verifying: bounded memory, few round trips. */
const EXPORT_BATCH = 500;
const VERIFY_BATCH = 2000;

/** The WHERE clauses of a filter, appending their parameters to `params`. */
class Conditions {
  readonly clauses: string[] = [];

  constructor(readonly params: unknown[] = []) {}

  add(column: string, operator: string, value: unknown, cast = ''): this {
    if (value === undefined) return this;
    this.params.push(value);
    this.clauses.push(`${column} ${operator} $${this.params.length}${cast}`);
    return this;
  }

  /** The column holds one of `values`. */
  anyOf(column: string, values: readonly string[] | undefined): this {
    if (values === undefined) return this;
    this.params.push(values);
    this.clauses.push(`${column} = ANY($${this.params.length}::text[])`);
    return this;
  }

  get sql(): string {
    return this.clauses.length === 0 ? 'TRUE' : this.clauses.join(' AND ');
  }
}

function auditConditions(filter: AuditFilter): Conditions {
  return (
    new Conditions()
      .add('actor_id', '=', filter.actorId)
      .add('source', '=', filter.source)
      .add('tool', '=', filter.tool)
      // Rows written before the names were one say confirmation_requested (see RecordedAuditStatus).
      .anyOf(
        'status',
        filter.status === 'confirmation_required' ? ['confirmation_required', 'confirmation_requested'] : filter.status && [filter.status],
      )
      .add('conversation_id', '=', filter.conversationId)
      .add('campaign_id', '=', filter.campaignId)
      .add('decision_id', '=', filter.decisionId)
      .add('created_at', '>=', filter.from)
      .add('created_at', '<', filter.to)
  );
}

function decisionConditions(filter: DecisionFilter): Conditions {
  return new Conditions()
    .add('user_id', '=', filter.actorId)
    .add('status', '=', filter.status)
    .add('conversation_id', '=', filter.conversationId)
    .add('campaign_id', '=', filter.campaignId)
    .add('id', '=', filter.decisionId)
    .add('created_at', '>=', filter.from)
    .add('created_at', '<', filter.to);
}

/**
 * Reads audit_log and decision_logs for admins. Each append numbers its row under a lock
 * held until commit (see the audit-chain migration), so the committed rows are always all
 * the seqs up to the newest: a page "seq < cursor" never gains a row later, and an export
 * or a verification bounded by the newest seq at its start reads a fixed set in batches.
 */
@Injectable()
export class PostgresAuditReader extends AuditReader {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async list(filter: AuditFilter, limit: number, cursor: string | null): Promise<Page<AuditRecord>> {
    const before = decodeCursor(cursor, isSeqCursor);
    const where = auditConditions(filter).add('seq', '<', before ?? undefined, '::bigint');
    const rows = await this.dataSource.query<AuditRow[]>(
      `SELECT ${AUDIT_COLUMNS} FROM audit_log WHERE ${where.sql} ORDER BY seq DESC LIMIT $${where.params.length + 1}`,
      [...where.params, limit + 1],
    );
    const items = rows.slice(0, limit);
    return {
      items: items.map(toAuditRecord),
      nextCursor: rows.length > limit ? encodeCursor(items[items.length - 1].seq) : null,
    };
  }

  async get(seq: number): Promise<AuditRecord | null> {
    const rows = await this.dataSource.query<AuditRow[]>(`SELECT ${AUDIT_COLUMNS} FROM audit_log WHERE seq = $1`, [seq]);
    return rows.length === 0 ? null : toAuditRecord(rows[0]);
  }

  async listDecisions(filter: DecisionFilter, limit: number, cursor: string | null): Promise<Page<DecisionRecord>> {
    const after = decodeCursor(cursor, isTimeAndIdCursor);
    const where = decisionConditions(filter);
    if (after) {
      where.params.push(after[0], after[1]);
      const n = where.params.length;
      where.clauses.push(`(created_at, id) < ($${n - 1}::timestamptz, $${n}::uuid)`);
    }
    const rows = await this.dataSource.query<DecisionRow[]>(
      `SELECT ${DECISION_COLUMNS} FROM decision_logs WHERE ${where.sql}
       ORDER BY created_at DESC, id DESC LIMIT $${where.params.length + 1}`,
      [...where.params, limit + 1],
    );
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    return {
      items: items.map(toDecisionRecord),
      nextCursor: rows.length > limit ? encodeCursor([last.created_key, last.id]) : null,
    };
  }

  async getDecision(id: string): Promise<DecisionWithToolCalls | null> {
    const decisions = await this.dataSource.query<
      (DecisionRow & { context: Omit<TurnContextView, 'summary'> | null; summary: string | null })[]
    >(
      `SELECT ${DECISION_COLUMNS}, d.context,
              (SELECT s.content FROM conversation_summaries s WHERE s.id = (d.context->>'summaryId')::uuid) AS summary
       FROM decision_logs d WHERE id = $1`,
      [id],
    );
    if (decisions.length === 0) return null;
    const [decision] = decisions;
    const calls = await this.dataSource.query<AuditRow[]>(`SELECT ${AUDIT_COLUMNS} FROM audit_log WHERE decision_id = $1 ORDER BY seq`, [
      id,
    ]);
    return {
      ...toDecisionRecord(decision),
      context: decision.context && { ...decision.context, summary: decision.summary },
      toolCalls: calls.map(toAuditRecord),
    };
  }

  async *export(filter: AuditFilter): AsyncIterable<AuditRecord> {
    const head = await this.head();
    if (head === null) return;
    const where = auditConditions(filter).add('seq', '<=', head, '::bigint');
    const afterParam = where.params.length + 1;
    let after = '0';
    for (;;) {
      // One statement per batch, no transaction held open: other requests (and PGlite's
      // single connection) are never blocked for the length of an export.
      const rows = await this.dataSource.query<AuditRow[]>(
        `SELECT ${AUDIT_COLUMNS} FROM audit_log WHERE ${where.sql} AND seq > $${afterParam}::bigint
         ORDER BY seq LIMIT $${afterParam + 1}`,
        [...where.params, after, EXPORT_BATCH],
      );
      for (const row of rows) yield toAuditRecord(row);
      if (rows.length < EXPORT_BATCH) return;
      after = rows[rows.length - 1].seq;
    }
  }

  async verify(): Promise<ChainVerification> {
    const head = await this.head();
    let previous = GENESIS_HASH;
    let after = '0';
    let checkedRows = 0;
    let firstBadSeq: number | null = null;
    let headHash: string | null = null;
    while (head !== null) {
      // The hash is recomputed by the same SQL function the append trigger used.
      const rows = await this.dataSource.query<{ seq: string; prev_hash: string | null; hash: string | null; intact: boolean | null }[]>(
        `SELECT seq, prev_hash, hash, hash = audit_row_hash(prev_hash, a) AS intact
         FROM audit_log a WHERE seq > $1::bigint AND seq <= $2::bigint ORDER BY seq LIMIT $3`,
        [after, head, VERIFY_BATCH],
      );
      for (const row of rows) {
        checkedRows += 1;
        if (firstBadSeq === null && (row.prev_hash !== previous || row.intact !== true)) firstBadSeq = Number(row.seq);
        previous = row.hash ?? '';
        headHash = row.hash;
      }
      if (rows.length < VERIFY_BATCH) break;
      after = rows[rows.length - 1].seq;
    }
    return { verified: firstBadSeq === null, checkedRows, firstBadSeq, headHash };
  }

  private async head(): Promise<string | null> {
    const [row] = await this.dataSource.query<{ head: string | null }[]>(`SELECT max(seq) AS head FROM audit_log`);
    return row.head;
  }
}

function toAuditRecord(row: AuditRow): AuditRecord {
  return {
    seq: Number(row.seq),
    createdAt: new Date(row.created_at),
    source: row.source,
    actorId: row.actor_id,
    conversationId: row.conversation_id,
    campaignId: row.campaign_id,
    outreachTaskId: row.outreach_task_id,
    decisionId: row.decision_id,
    tool: row.tool,
    arguments: row.arguments,
    status: row.status,
    result: row.result,
    errorCode: row.error_code,
    durationMs: row.duration_ms,
    securityEvents: row.security_events,
    pendingSeq: row.pending_seq === null ? null : Number(row.pending_seq),
    hash: row.hash,
    prevHash: row.prev_hash,
  };
}

function toDecisionRecord(row: DecisionRow): DecisionRecord {
  return {
    id: row.id,
    createdAt: new Date(row.created_at),
    actorId: row.user_id,
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
    cost: row.cost === null ? null : Number(row.cost),
    durationMs: row.duration_ms,
    failureClass: row.failure_class,
    providerRequestId: row.provider_request_id,
  };
}
