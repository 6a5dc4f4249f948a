import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Page } from '../../../application/shared/page';
import { decodeCursor, encodeCursor, isSeqCursor, isTimeAndIdCursor } from '../cursor';
import { jsonColumn } from '../json-column';
import { ConversationStore, type FinishedTurn } from '../../../application/chat/ports/conversation-store.port';
import type { PendingConfirmation } from '../../../domain/agent/confirmation';
import type { DecisionType } from '../../../domain/agent/decision';
import { canonicalJson, type ToolArguments } from '../../../domain/agent/tool-call-validation';
import {
  type AnswerStatus,
  ConversationNotFoundError,
  conversationTitle,
  type ConversationSummary,
  type StoredMessage,
  type ToolCallRecord,
} from '../../../domain/chat/conversation';

interface MessageRow {
  seq: string;
  id: string;
  role: 'user' | 'assistant';
  content: string;
  tool_calls: ToolCallRecord[];
  decision_type: DecisionType | null;
  status: AnswerStatus | null;
  created_at: string | Date;
}

interface SummaryRow {
  id: string;
  content: string;
  last_seq: string | number;
  messages: number;
}

interface PendingRow {
  id: string;
  user_id: string;
  conversation_id: string;
  tool: string;
  arguments: ToolArguments;
  arguments_hash: string;
  prompt: string;
  expires_at: string | Date;
}

const PENDING_COLUMNS = 'id, user_id, conversation_id, tool, arguments, arguments_hash, prompt, expires_at';
/** The status of an answer whose turn is still running (or died): never shown, never replayed. */
export const IN_PROGRESS = 'in_progress';
/** The decision type of a turn's decision row until the turn ends (status `pending`). */
export const PENDING_DECISION = 'PENDING';

/**
 * Chat state in PostgreSQL. Each method is one statement, so a turn that runs one tool
 * costs two statements here (start, finish) besides its tools.
 */
@Injectable()
export class PostgresConversationStore extends ConversationStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async startTurn(input: {
    userId: string;
    conversationId: string | null;
    message: string;
    decisionId: string;
    model: { readonly provider: string; readonly model: string };
    window: number;
    now: Date;
  }) {
    const { userId, conversationId, message, decisionId, model, window, now } = input;
    // The UPDATE row-locks the conversation until this statement commits, so two turns of one
    // conversation store their pairs one after the other: question, answer, question, answer.
    const conversation =
      conversationId === null
        ? `INSERT INTO conversations (user_id, title, created_at, updated_at) VALUES ($1, $4, $3, $3) RETURNING id`
        : `UPDATE conversations SET updated_at = $3 WHERE id = $4 AND user_id = $1 RETURNING id`;
    // Every part of one statement reads the same snapshot: the history below does not
    // include the message inserted here, which is what the model must not see twice.
    // The answer's row is stored now, numbered after the question (rows take their numbers
    // in the ORDER BY's order) and before anything later in the conversation, and filled in
    // by finishTurn; one left 'in_progress' belongs to a turn that never finished.
    const rows = await this.dataSource.query<
      { id: string; history: MessageRow[]; summary: SummaryRow | null; pending: PendingRow | null }[]
    >(
      `WITH c AS (${conversation}),
            m AS (INSERT INTO messages (conversation_id, role, content, status, decision_id, created_at)
                  SELECT c.id, v.role, v.content, v.status, v.decision_id, $3 FROM c,
                    (VALUES (1, 'user', $2, NULL, NULL), (2, 'assistant', '', '${IN_PROGRESS}', $6::uuid))
                      AS v (n, role, content, status, decision_id)
                  ORDER BY v.n),
            d AS (INSERT INTO decision_logs (id, user_id, conversation_id, decision_type, status, iterations, provider, model,
                    prompt_tokens, completion_tokens, duration_ms, created_at)
                  SELECT $6, $1, c.id, '${PENDING_DECISION}', 'pending', 0, $7, $8, 0, 0, 0, $3 FROM c),
            s AS (SELECT id, content, last_seq, messages FROM conversation_summaries
                  WHERE conversation_id = (SELECT id FROM c) ORDER BY last_seq DESC LIMIT 1)
       SELECT c.id,
         (SELECT row_to_json(s) FROM s) AS summary,
         (SELECT coalesce(json_agg(h ORDER BY h.seq), '[]'::json) FROM (
            SELECT seq, id, role, content, tool_calls, decision_type, status, created_at
            FROM messages WHERE conversation_id = c.id AND status IS DISTINCT FROM '${IN_PROGRESS}'
              AND seq > coalesce((SELECT last_seq FROM s), 0)
            ORDER BY seq DESC LIMIT $5) h) AS history,
         (SELECT row_to_json(p) FROM (
            SELECT ${PENDING_COLUMNS} FROM pending_confirmations
            WHERE conversation_id = c.id AND resolved_at IS NULL
            ORDER BY created_at DESC LIMIT 1) p) AS pending
       FROM c`,
      [userId, message, now, conversationId ?? conversationTitle(message), window, decisionId, model.provider, model.model],
    );
    if (rows.length === 0) throw new ConversationNotFoundError();
    const [row] = rows;
    return {
      conversationId: row.id,
      history: row.history.map((message) => ({ ...toStoredMessage(message), seq: Number(message.seq) })),
      summary: row.summary && {
        id: row.summary.id,
        content: row.summary.content,
        lastSeq: Number(row.summary.last_seq),
        messages: row.summary.messages,
      },
      pendingConfirmation: row.pending ? toPendingConfirmation(row.pending) : null,
    };
  }

  async finishTurn(turn: FinishedTurn, now: Date): Promise<void> {
    const { assistantMessage: message, decision } = turn;
    const params: unknown[] = [
      turn.conversationId,
      message.content,
      jsonColumn(message.toolCalls),
      message.decisionType,
      message.status,
      now,
      decision.id,
      turn.userId,
      decision.status,
      decision.iterations,
      decision.provider,
      decision.model,
      decision.promptTokens,
      decision.completionTokens,
      decision.durationMs,
      decision.failureClass,
      decision.providerRequestId,
      decision.cost,
      decision.context && JSON.stringify(decision.context),
    ];
    // Whatever the row holds (normally 'in_progress'; the sweeper's answer if this turn ran
    // far past its deadline), the answer the person was given is what stays.
    const parts = [
      `m AS (UPDATE messages SET content = $2, tool_calls = $3, decision_type = $4, status = $5, created_at = $6
             WHERE decision_id = $7 AND conversation_id = $1)`,
      // Its created_at stays the turn's start; whatever the sweeper wrote meanwhile gives way too.
      `d AS (UPDATE decision_logs SET decision_type = $4, status = $9, iterations = $10, provider = $11, model = $12,
               prompt_tokens = $13, completion_tokens = $14, duration_ms = $15, failure_class = $16,
               provider_request_id = $17, cost = $18, context = $19
             WHERE id = $7 AND user_id = $8)`,
    ];
    if (turn.newSummary) {
      const summary = turn.newSummary;
      params.push(summary.id, summary.content, summary.lastSeq, summary.messages);
      const n = params.length;
      parts.push(`s AS (INSERT INTO conversation_summaries (id, conversation_id, decision_id, content, last_seq, messages, created_at)
                        VALUES ($${n - 3}, $1, $7, $${n - 2}, $${n - 1}, $${n}, $6))`);
    }
    if (turn.droppedPendingConfirmationId) {
      params.push(turn.droppedPendingConfirmationId);
      parts.push(`x AS (UPDATE pending_confirmations SET resolved_at = $6, resolution = 'dropped'
                        WHERE id = $${params.length} AND resolved_at IS NULL)`);
    }
    let last = `UPDATE conversations SET updated_at = $6 WHERE id = $1`;
    if (turn.newPendingConfirmation) {
      const pending = turn.newPendingConfirmation;
      params.push(pending.tool, JSON.stringify(pending.arguments), argumentsHash(pending.arguments), pending.prompt, pending.expiresAt);
      const n = params.length;
      parts.push(`u AS (${last})`);
      last = `INSERT INTO pending_confirmations (user_id, conversation_id, tool, arguments, arguments_hash, prompt, created_at, expires_at)
              VALUES ($8, $1, $${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, $6, $${n})`;
    }
    await this.dataSource.query(`WITH ${parts.join(',\n')}\n${last}`, params);
  }

  async takePendingConfirmation(
    id: string,
    userId: string,
    resolution: 'confirmed' | 'cancelled',
    now: Date,
  ): Promise<PendingConfirmation | null> {
    const [rows] = await this.dataSource.query<[PendingRow[], number]>(
      `UPDATE pending_confirmations SET resolved_at = $3, resolution = $4
       WHERE id = $1 AND user_id = $2 AND resolved_at IS NULL AND expires_at > $3
       RETURNING ${PENDING_COLUMNS}`,
      [id, userId, now, resolution],
    );
    return rows.length === 0 ? null : toPendingConfirmation(rows[0]);
  }

  async listConversations(userId: string, limit: number, cursor: string | null): Promise<Page<ConversationSummary>> {
    const after = decodeCursor(cursor, isTimeAndIdCursor);
    const rows = await this.dataSource.query<{ id: string; title: string; created_at: Date; updated_at: Date; updated_key: string }[]>(
      `SELECT id, title, created_at, updated_at, updated_at::text AS updated_key FROM conversations
       WHERE user_id = $1 ${after ? 'AND (updated_at, id) < ($3::timestamptz, $4::uuid)' : ''}
       ORDER BY updated_at DESC, id DESC LIMIT $2`,
      after ? [userId, limit + 1, after[0], after[1]] : [userId, limit + 1],
    );
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    return {
      items: items.map((row) => ({ id: row.id, title: row.title, createdAt: row.created_at, updatedAt: row.updated_at })),
      nextCursor: rows.length > limit ? encodeCursor([last.updated_key, last.id]) : null,
    };
  }

  async listMessages(userId: string, conversationId: string, limit: number, cursor: string | null): Promise<Page<StoredMessage> | null> {
    const before = decodeCursor(cursor, isSeqCursor);
    const rows = await this.dataSource.query<(MessageRow & { owned: boolean })[]>(
      `SELECT m.seq, m.id, m.role, m.content, m.tool_calls, m.decision_type, m.status, m.created_at
       FROM conversations c JOIN messages m ON m.conversation_id = c.id
       WHERE c.id = $1 AND c.user_id = $2 AND m.status IS DISTINCT FROM '${IN_PROGRESS}' ${before ? 'AND m.seq < $4' : ''}
       ORDER BY m.seq DESC LIMIT $3`,
      before ? [conversationId, userId, limit + 1, before] : [conversationId, userId, limit + 1],
    );
    if (rows.length === 0 && !(await this.owns(userId, conversationId))) return null;
    const page = rows.slice(0, limit);
    return {
      items: page.reverse().map(toStoredMessage),
      nextCursor: rows.length > limit ? encodeCursor(page[0].seq) : null,
    };
  }

  private async owns(userId: string, conversationId: string): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(`SELECT 1 FROM conversations WHERE id = $1 AND user_id = $2`, [
      conversationId,
      userId,
    ]);
    return rows.length > 0;
  }
}

function argumentsHash(args: ToolArguments): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex');
}

function toPendingConfirmation(row: PendingRow): PendingConfirmation | null {
  // The hash binds the stored call to what was shown: a row altered since is not run.
  if (argumentsHash(row.arguments) !== row.arguments_hash) return null;
  return {
    id: row.id,
    userId: row.user_id,
    conversationId: row.conversation_id,
    tool: row.tool,
    arguments: row.arguments,
    prompt: row.prompt,
    expiresAt: new Date(row.expires_at),
  };
}

function toStoredMessage(row: MessageRow): StoredMessage {
  return {
    id: row.id,
    role: row.role,
    content: row.content,
    toolCalls: row.tool_calls,
    decisionType: row.decision_type,
    status: row.status,
    createdAt: new Date(row.created_at),
  };
}
