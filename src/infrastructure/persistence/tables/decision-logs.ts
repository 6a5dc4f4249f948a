import type { DecisionLogEntry } from '../../../application/chat/ports/conversation-store.port';
import type { OpenedDecision, OutreachDecision } from '../../../application/outreach/ports/outreach-cycle-store.port';
import type { IntentType, OutcomeCategory } from '../../../domain/agent/turn-outcome';
import { type Amount, decimalText } from '../../../domain/agent/money';
import { raw, sql, type Statement } from '../sql';

/*
 * decision_logs holds one row per chat turn and per outreach cycle that claims a task or wraps
 * up a campaign. This module is its one writer: every statement that adds or changes a row is
 * made here, whole or as a part of the statement that needs it (a turn's opening and finishing
 * statements, a cycle's claim and release), so that a row's life reads in one place. A row is
 * opened `pending` (type PENDING) before any model call; its turn or cycle settles it, or a
 * sweeper marks it `interrupted` once its process has died.
 */

/** The decision type of a row until its turn or cycle ends (status `pending`). */
export const PENDING_DECISION = 'PENDING';
const PENDING_DECISION_TYPE = raw(`'${PENDING_DECISION}'`);
const PENDING_INTENT_TYPE = raw(`'${'PENDING' satisfies IntentType}'`);
const PENDING_OUTCOME = raw(`'${'PENDING' satisfies OutcomeCategory}'`);
/** A turn cut off never said what the person wanted. */
const UNKNOWN_INTENT = raw(`'${'UNKNOWN' satisfies IntentType}'`);
const INTERRUPTED_OUTCOME = raw(`'${'INTERRUPTED' satisfies OutcomeCategory}'`);

/**
 * The INSERT that opens a chat turn's row as pending, for the conversation and the person's
 * message of the one row `of` selects, in that order; none when it selects none. A part of
 * the turn's opening statement (PostgresConversationStore.startTurn).
 */
export function turnDecisionOpening(
  turn: { readonly id: string; readonly userId: string; readonly provider: string; readonly model: string; readonly at: Date },
  of: Statement,
): Statement {
  return sql`INSERT INTO decision_logs (id, user_id, conversation_id, message_id, decision_type, intent_type, outcome_category,
      status, iterations, provider, model, prompt_tokens, completion_tokens, duration_ms, created_at)
    SELECT ${turn.id}::uuid, ${turn.userId}::uuid, o.conversation_id, o.message_id, ${PENDING_DECISION_TYPE},
      ${PENDING_INTENT_TYPE}, ${PENDING_OUTCOME}, 'pending', 0, ${turn.provider}::text, ${turn.model}::text, 0, 0, 0,
      ${turn.at}::timestamptz
    FROM (${of}) AS o (conversation_id, message_id)`;
}

/**
 * The UPDATE that completes a turn's row with what the turn did, whatever a sweeper wrote
 * meanwhile; its created_at stays the turn's start. A part of the turn's finishing statement.
 */
export function turnDecisionSettling(decision: DecisionLogEntry, userId: string): Statement {
  return sql`UPDATE decision_logs SET decision_type = ${decision.decisionType},
      clarification_question = ${decision.clarificationQuestion}, status = ${decision.status},
      iterations = ${decision.iterations}, provider = ${decision.provider}, model = ${decision.model},
      prompt_tokens = ${decision.promptTokens}, completion_tokens = ${decision.completionTokens},
      duration_ms = ${decision.durationMs}, failure_class = ${decision.failureClass},
      provider_request_id = ${decision.providerRequestId}, cost = ${costColumn(decision.cost)},
      context = ${decision.context && JSON.stringify(decision.context)}, intent_type = ${decision.intentType},
      outcome_category = ${decision.outcomeCategory}, temperature = ${decision.sampling.temperature},
      max_tokens = ${decision.sampling.maxTokens}
    WHERE id = ${decision.id} AND user_id = ${userId}`;
}

/**
 * The UPDATE that marks `interrupted` the pending rows of the turns `ids` selects (their
 * answers given by the chat sweeper), measured up to `now`. A part of the sweeper's statement.
 */
export function interruptedTurnDecisions(ids: Statement, now: Date): Statement {
  return sql`UPDATE decision_logs SET status = 'interrupted', decision_type = 'RESPOND_ONLY', intent_type = ${UNKNOWN_INTENT},
      outcome_category = ${INTERRUPTED_OUTCOME},
      duration_ms = least(floor(extract(epoch FROM ${now}::timestamptz - created_at) * 1000), 2147483647)::int
    WHERE id IN (${ids}) AND status = 'pending'`;
}

/**
 * The INSERT that opens a cycle's row as pending (PENDING, like a chat turn's), before the
 * model is asked, for the owner, campaign and task (or null) of the one row `of` selects, in
 * that order; none when it selects none.
 */
export function cycleDecisionOpening(d: OpenedDecision, of: Statement): Statement {
  return sql`INSERT INTO decision_logs (id, user_id, campaign_id, outreach_task_id, decision_type, status, iterations, provider, model,
      prompt_tokens, completion_tokens, duration_ms, created_at)
    SELECT ${d.id}::uuid, o.owner_id, o.campaign_id, o.task_id, ${PENDING_DECISION}::varchar, 'pending', 0, ${d.provider}::varchar,
      ${d.model}::varchar, 0, 0, 0, ${d.createdAt}::timestamptz
    FROM (${of}) AS o (owner_id, campaign_id, task_id)`;
}

/**
 * A cycle's row, whole: on its own, or a part of the statement that releases the cycle's
 * task. It settles the row the cycle opened as pending (cycleDecisionOpening), keeping its
 * start and task, or writes it whole when none was opened. It also overwrites a row a sweeper
 * marked interrupted meanwhile: what the cycle did is the better record.
 */
export function cycleDecision(d: OutreachDecision): Statement {
  return sql`INSERT INTO decision_logs (id, user_id, campaign_id, outreach_task_id, decision_type, status, iterations, provider, model,
      prompt_tokens, completion_tokens, cost, duration_ms, failure_class, provider_request_id, created_at)
    VALUES (${d.id}, ${d.ownerId}, ${d.campaignId}, ${d.taskId}, ${d.decisionType}, ${d.status}, ${d.iterations}, ${d.provider},
      ${d.model}, ${d.promptTokens}, ${d.completionTokens}, ${costColumn(d.cost)}, ${d.durationMs}, ${d.failureClass}, ${d.providerRequestId},
      ${d.createdAt})
    ON CONFLICT (id) DO UPDATE SET decision_type = EXCLUDED.decision_type, status = EXCLUDED.status,
      iterations = EXCLUDED.iterations, provider = EXCLUDED.provider, model = EXCLUDED.model,
      prompt_tokens = EXCLUDED.prompt_tokens, completion_tokens = EXCLUDED.completion_tokens, cost = EXCLUDED.cost,
      duration_ms = EXCLUDED.duration_ms, failure_class = EXCLUDED.failure_class, provider_request_id = EXCLUDED.provider_request_id,
      outreach_task_id = COALESCE(EXCLUDED.outreach_task_id, decision_logs.outreach_task_id)
    WHERE decision_logs.user_id = EXCLUDED.user_id AND decision_logs.campaign_id = EXCLUDED.campaign_id`;
}

/**
 * Marks `interrupted` (INTERRUPTED) up to `limit` outreach rows still pending that were opened
 * before `openedBefore`: those of cycles whose worker died.
 *
 * decision_logs_pending holds only the pending rows, by their start: the walk reads those,
 * not the table. Chat's pending rows (no campaign) are its sweeper's; SKIP LOCKED leaves a
 * row a cycle is settling right now to that cycle. The batch is picked once (MATERIALIZED):
 * as `id IN (subquery)`, a nested-loop semi join runs the subquery again for each row, skips
 * the rows this statement already updated, and takes the next ones, past the limit.
 */
export function abandonedCycleDecisions(input: { readonly openedBefore: Date; readonly limit: number }): Statement {
  return sql`WITH picked AS MATERIALIZED (
      SELECT d.id FROM decision_logs d
      WHERE d.status = 'pending' AND d.campaign_id IS NOT NULL AND d.created_at < ${input.openedBefore}
      ORDER BY d.created_at LIMIT ${input.limit} FOR UPDATE SKIP LOCKED)
    UPDATE decision_logs SET status = 'interrupted', failure_class = 'INTERRUPTED'
    WHERE id IN (SELECT id FROM picked) AND status = 'pending'`;
}

/** Empties the text a decision row keeps of a person (the question they were asked, the turn's context) for a user's or a task's rows. */
export function eraseDecisionText(target: { readonly userIds: readonly string[]; readonly taskIds: readonly string[] }): Statement {
  return sql`UPDATE decision_logs SET clarification_question = NULL, context = NULL
    WHERE (user_id = ANY(${target.userIds}::uuid[]) OR outreach_task_id = ANY(${target.taskIds}::uuid[]))
      AND (clarification_question IS NOT NULL OR context IS NOT NULL)`;
}

/** Deletes up to `limit` decision rows created before `before` (retention: kept as long as the audit rows). */
export function pruneDecisionLogs(before: Date, limit: number): Statement {
  return sql`DELETE FROM decision_logs WHERE id IN (SELECT id FROM decision_logs WHERE created_at < ${before}::timestamptz LIMIT ${limit})`;
}

/** An exact cost as numeric's text (money.ts), or null. */
function costColumn(cost: Amount | null): string | null {
  return cost === null ? null : decimalText(cost);
}
