import {
  AUDIT_ROW_PLACES,
  AUDIT_SOURCES,
  type AuditFilter,
  type AuditRecord,
  type AuditSource,
  type DecisionFilter,
  type DecisionRecord,
  RECORDED_AUDIT_STATUSES,
  type RecordedAuditStatus,
  type RecordedToolCall,
} from '../../../../application/audit/ports/audit-reader.port';
import { amountOf } from '../../../../domain/agent/money';
import { INTENT_TYPES, OUTCOME_CATEGORIES } from '../../../../domain/agent/turn-outcome';
import { ROLES } from '../../../../domain/identity/user';
import { POLICY_EFFECTS, POLICY_SOURCES } from '../../../../domain/policy/policy';
import { z } from 'zod';
import { join, raw, sql, type Statement } from '../../sql';

/*
 * How PostgresAuditReader reads audit_log and decision_logs rows for admins: their columns,
 * their shapes as records, and the filters of a list or an export as conditions.
 */

/** An audit_log row as the admin API reads it; bigint columns come back as text. */
export const AUDIT_ROW = z
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
    policy: z
      .object({
        version: z.number().int(),
        rule: z.string().nullable(),
        effect: z.enum(POLICY_EFFECTS),
        items: z.number().int().optional(),
      })
      .nullable(),
    hash: z.string().nullable(),
    prev_hash: z.string().nullable(),
    chain: z.enum(AUDIT_ROW_PLACES),
    erased_by: z.string().nullable(),
    erased_at: z.coerce.date().nullable(),
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
    policy: row.policy,
    hash: row.hash,
    prevHash: row.prev_hash,
    chain: row.chain,
    erasedBy: row.erased_by,
    erasedAt: row.erased_at,
  }));

/** A tool call's pending or only row, with its actor's email and role as they are now (recentToolCalls). */
export const TOOL_CALL_ROW = z
  .object({
    seq: z.coerce.number().int(),
    created_at: z.coerce.date(),
    source: z.enum(POLICY_SOURCES),
    actor_id: z.string(),
    actor_email: z.string().nullable(),
    actor_role: z.enum(ROLES).nullable(),
    tool: z.string(),
    arguments: z.unknown(),
    status: z.enum(RECORDED_AUDIT_STATUSES as [RecordedAuditStatus, ...RecordedAuditStatus[]]),
    items: z.number().int().nullable(),
  })
  .transform((row): RecordedToolCall => ({
    seq: row.seq,
    createdAt: row.created_at,
    source: row.source,
    actorId: row.actor_id,
    actorEmail: row.actor_email,
    actorRole: row.actor_role,
    tool: row.tool,
    arguments: row.arguments,
    status: row.status,
    items: row.items,
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
  clarification_question: z.string().nullable(),
  status: z.string(),
  iterations: z.number(),
  provider: z.string(),
  model: z.string(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  // numeric comes back as its exact text.
  cost: z
    .string()
    .nullable()
    .transform((text) => (text === null ? null : amountOf(text))),
  duration_ms: z.number(),
  failure_class: z.string().nullable(),
  provider_request_id: z.string().nullable(),
  message_id: z.string().nullable(),
  intent_type: z.enum(INTENT_TYPES).nullable(),
  outcome_category: z.enum(OUTCOME_CATEGORIES).nullable(),
  temperature: z.coerce.number().nullable(),
  max_tokens: z.number().nullable(),
};

export function toDecisionRecord(row: z.output<z.ZodObject<typeof DECISION_FIELDS>>): DecisionRecord {
  return {
    id: row.id,
    createdAt: row.created_at,
    actorId: row.user_id,
    actorEmail: row.actor_email,
    conversationId: row.conversation_id,
    campaignId: row.campaign_id,
    outreachTaskId: row.outreach_task_id,
    decisionType: row.decision_type,
    clarificationQuestion: row.clarification_question,
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

export const DECISION_ROW = z.object(DECISION_FIELDS);

/**
 * Audit rows (`a`) with their actor's email, read now from users (`u`): null once the account
 * is gone. Columns and conditions name their table, since users has an id and a created_at too.
 */
/**
 * The log's numbering: rows and links are numbered from 1 to 2^53 − 1, the admin API's
 * sequence numbers (exact as JSON numbers); migration 1767744000000 refuses any other. A row
 * numbered outside it is not listed, exported or shown as a row of the log; verify names it.
 */
export const LAST_NUMBER = Number.MAX_SAFE_INTEGER;
export const NUMBERED = raw(`a.seq BETWEEN 1 AND ${LAST_NUMBER}`);

/**
 * Where an audit row (`a`, its link `c` joined on its seq) stands: `linked` into the chain,
 * `queued` for the sealer, or `outside` the log. A row of the log is numbered (NUMBERED), is
 * the only row of its number, and is in exactly one place: one link (at a numbered position),
 * or the sealer's queue. Any other row was made by the tables' owner around the triggers and
 * constraints; the admin API shows it so, and verify fails on it (accountFor in
 * postgres-audit-reader.ts checks the same rule set by set, for the whole table at once).
 */
export const AUDIT_ROW_PLACE = sql`CASE
    WHEN NOT (${NUMBERED}) OR c.position NOT BETWEEN 1 AND ${raw(String(LAST_NUMBER))}
      OR (SELECT count(*) FROM audit_log twin WHERE twin.seq = a.seq) <> 1
      OR (SELECT count(*) FROM audit_chain link WHERE link.seq = a.seq) + (SELECT count(*) FROM audit_unsealed q WHERE q.seq = a.seq) <> 1
      THEN 'outside'
    WHEN c.seq IS NULL THEN 'queued'
    ELSE 'linked' END`;
export const AUDIT_COLUMNS = sql`a.seq, a.created_at, a.source, a.actor_id, u.email AS actor_email, a.conversation_id, a.campaign_id,
  a.outreach_task_id, a.decision_id, a.tool, a.arguments, a.status, a.result, a.error_code, a.error_message, a.duration_ms, a.security_events,
  a.pending_seq, a.policy, c.hash, c.prev_hash, ${AUDIT_ROW_PLACE} AS chain, a.erased_by, a.erased_at`;
/** With the row's link in the chain (`c`): none until the sealer has linked it. */
export const AUDIT_FROM = raw(`audit_log a LEFT JOIN users u ON u.id = a.actor_id LEFT JOIN audit_chain c ON c.seq = a.seq`);
/** Decision rows (`d`) with their user's email, as for audit rows. */
export const DECISION_COLUMNS =
  raw(`d.id, d.created_at, d.created_at::text AS created_key, d.user_id, u.email AS actor_email, d.conversation_id,
  d.campaign_id, d.outreach_task_id, d.decision_type, d.clarification_question, d.status, d.iterations, d.provider, d.model, d.prompt_tokens,
  d.completion_tokens, d.cost, d.duration_ms, d.failure_class, d.provider_request_id, d.message_id, d.intent_type, d.outcome_category,
  d.temperature, d.max_tokens`);
export const DECISION_FROM = raw(`decision_logs d LEFT JOIN users u ON u.id = d.user_id`);

/** `column op value` when the filter has a value, else nothing. */
export const when = (value: unknown, condition: Statement): Statement | null => (value === undefined ? null : condition);

/** The conditions joined with AND; TRUE when there are none. */
export function allOf(conditions: readonly (Statement | null)[]): Statement {
  const present = conditions.filter((condition): condition is Statement => condition !== null);
  return present.length === 0 ? sql`TRUE` : join(present, ' AND ');
}

export function auditConditions(filter: AuditFilter): (Statement | null)[] {
  // Rows written before the names were one say confirmation_requested (see RecordedAuditStatus).
  const statuses = filter.status === 'confirmation_required' ? ['confirmation_required', 'confirmation_requested'] : [filter.status];
  return [
    NUMBERED,
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

export function decisionConditions(filter: DecisionFilter): (Statement | null)[] {
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
export const TURN_CONTEXT = z.object({
  summaryId: z.string().nullable(),
  firstSeq: z.number().nullable(),
  lastSeq: z.number().nullable(),
  messages: z.number(),
  estimatedTokens: z.number(),
});

/** A decision with what the model was told and the summary it read. */
export const DECISION_DETAIL_ROW = DECISION_ROW.extend({
  context: TURN_CONTEXT.nullable(),
  summary: z.string().nullable(),
  message: z.object({ id: z.string(), content: z.string(), createdAt: z.coerce.date() }).nullable(),
});
