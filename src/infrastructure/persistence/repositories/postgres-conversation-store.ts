import { createHash, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Page } from '../../../application/shared/page';
import { decodeCursor, encodeCursor, isSeqCursor, isTimeAndIdCursor } from '../cursor';
import { jsonColumn } from '../json-column';
import { empty, exists, join, raw, run, selectRow, selectRows, sql, type Statement } from '../sql';
import { turnDecisionOpening, turnDecisionSettling } from '../tables/decision-logs';
import { IN_PROGRESS_STATUS } from '../tables/messages';
import { notificationInsert } from '../tables/notifications';
import { countHit } from '../tables/rate-limits';
import { z } from 'zod';
import { ConversationStore, type FinishedTurn, type StartTurnInput } from '../../../application/chat/ports/conversation-store.port';
import type { ConfirmationRecord, PendingConfirmation } from '../../../domain/agent/confirmation';
import { DECISION_TYPES, TURN_STATUSES } from '../../../domain/agent/decision';
import { canonicalJson, type ToolArguments } from '../../../domain/agent/tool-call-validation';
import { AccountGoneError, CredentialsChangedError, hasCurrentCredentials } from '../../../domain/identity/user';
import {
  type AnswerStatus,
  ChatTurnLimitError,
  ConversationNotFoundError,
  conversationTitle,
  type ConversationSummary,
  type StoredMessage,
  type ToolCallRecord,
} from '../../../domain/chat/conversation';

const TOOL_CALL = z.object({
  id: z.string(),
  tool: z.string(),
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()]),
  success: z.boolean(),
  result: z.unknown().optional(),
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }).optional(),
  durationMs: z.number(),
}) satisfies z.ZodType<ToolCallRecord>;

/** A message row, read as columns or out of json_agg (where a timestamp is text). */
const MESSAGE_ROW = z.object({
  seq: z.coerce.number().int(),
  id: z.string(),
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  tool_calls: z.array(TOOL_CALL),
  decision_type: z.enum(DECISION_TYPES).nullable(),
  status: z.enum([...TURN_STATUSES, 'interrupted'] satisfies AnswerStatus[]).nullable(),
  created_at: z.coerce.date(),
});

const SUMMARY_ROW = z.object({ id: z.string(), content: z.string(), last_seq: z.coerce.number().int(), messages: z.number() });

const PENDING_ROW = z.object({
  id: z.string(),
  user_id: z.string(),
  conversation_id: z.string(),
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  arguments_hash: z.string(),
  prompt: z.string(),
  expires_at: z.coerce.date(),
});

/** What startTurn reads back: the conversation, its history after the latest summary, and the open confirmation. */
const TURN_START_ROW = z.object({
  /** The account's credentials version, when the turn checks it; null otherwise and when there is no such account. */
  credentials_version: z.number().nullable(),
  /** Seconds the user's chat limit still blocks them; null when the turn opened (or the account check failed). */
  blocked_for: z.number().nullable(),
  id: z.string().nullable(),
  history: z.array(MESSAGE_ROW),
  summary: SUMMARY_ROW.nullable(),
  pending: PENDING_ROW.nullable(),
});

const CONVERSATION_ROW = z.object({
  id: z.string(),
  title: z.string(),
  created_at: z.date(),
  updated_at: z.date(),
  updated_key: z.string(),
});

const RECORD_ROW = z.object({
  tool: z.string(),
  created_at: z.coerce.date(),
  expires_at: z.coerce.date(),
  resolution: z.enum(['confirmed', 'cancelled', 'dropped']).nullable(),
  resolved_at: z.coerce.date().nullable(),
});

const PENDING_COLUMNS = raw('id, user_id, conversation_id, tool, arguments, arguments_hash, prompt, expires_at');

/**
 * Chat state in PostgreSQL. Each method is one statement, so a turn that runs one tool
 * costs two statements here (start, finish) besides its tools.
 */
@Injectable()
export class PostgresConversationStore extends ConversationStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async startTurn(input: StartTurnInput) {
    const { userId, conversationId, message, decisionId, model, window, turnsPerMinute, account, now } = input;
    // The session's account check, when the guard left it here, comes first: the hit is counted
    // only for a current session. Then the turn's hit on the user's chat limit; everything else
    // happens only when it is not blocked (`open`; null without a hit), so a refused turn
    // costs this one statement and stores nothing.
    const accountCheck =
      account.kind === 'check'
        ? {
            cte: sql`a AS (SELECT credentials_version FROM users WHERE id = ${userId}),`,
            holds: sql`EXISTS (SELECT 1 FROM a WHERE credentials_version = ${account.credentialsVersion}::bigint)`,
            version: raw('(SELECT credentials_version FROM a)'),
          }
        : null;
    const hit = countHit({
      key: `chat:${userId}`,
      ttlMs: 60_000,
      limit: turnsPerMinute,
      blockDurationMs: 60_000,
      backOff: false,
      only: accountCheck?.holds,
    });
    const open = raw('(SELECT blocked_for IS NULL FROM hit)');
    // The UPDATE row-locks the conversation until this statement commits, so two turns of one
    // conversation store their pairs one after the other: question, answer, question, answer.
    const conversation =
      conversationId === null
        ? sql`INSERT INTO conversations (user_id, title, created_at, updated_at)
              SELECT ${userId}, ${conversationTitle(message)}, ${now}, ${now} WHERE ${open} RETURNING id`
        : sql`UPDATE conversations SET updated_at = ${now} WHERE id = ${conversationId} AND user_id = ${userId} AND ${open}
              RETURNING id`;
    // Every part of one statement reads the same snapshot: the history below does not
    // include the message inserted here, which is what the model must not see twice.
    // The answer's row is stored now, numbered after the question (rows take their numbers
    // in the ORDER BY's order) and before anything later in the conversation, and filled in
    // by finishTurn; one left 'in_progress' belongs to a turn that never finished.
    const row = await selectRow(
      this.dataSource,
      sql`WITH ${accountCheck?.cte ?? empty} hit AS (${hit}),
               c AS (${conversation}),
               m AS (INSERT INTO messages (conversation_id, role, content, status, decision_id, created_at)
                     SELECT c.id, v.role, v.content, v.status, v.decision_id, ${now}::timestamptz FROM c,
                       (VALUES (1, 'user', ${message}::text, NULL, NULL), (2, 'assistant', '', ${IN_PROGRESS_STATUS}, ${decisionId}::uuid))
                         AS v (n, role, content, status, decision_id)
                     ORDER BY v.n
                     RETURNING id, role),
               d AS (${turnDecisionOpening(
                 { id: decisionId, userId, ...model, at: now },
                 sql`SELECT c.id, (SELECT id FROM m WHERE role = 'user') FROM c`,
               )}),
               s AS (SELECT id, content, last_seq, messages FROM conversation_summaries
                     WHERE conversation_id = (SELECT id FROM c) ORDER BY last_seq DESC LIMIT 1)
          SELECT ${accountCheck?.version ?? raw('NULL::int')} AS credentials_version, hit.blocked_for, c.id,
            (SELECT row_to_json(s) FROM s) AS summary,
            (SELECT coalesce(json_agg(h ORDER BY h.seq), '[]'::json) FROM (
               SELECT seq, id, role, content, tool_calls, decision_type, status, created_at
               FROM messages WHERE conversation_id = c.id AND status IS DISTINCT FROM ${IN_PROGRESS_STATUS}
                 AND seq > coalesce((SELECT last_seq FROM s), 0)
               ORDER BY seq DESC LIMIT ${window}::int) h) AS history,
            (SELECT row_to_json(p) FROM (
               SELECT ${PENDING_COLUMNS} FROM pending_confirmations
               WHERE conversation_id = c.id AND resolved_at IS NULL
               ORDER BY created_at DESC LIMIT 1) p) AS pending
          FROM (VALUES (true)) AS one LEFT JOIN hit ON true LEFT JOIN c ON true`,
      TURN_START_ROW,
    );
    if (!row) throw new Error('the opening statement returned no row');
    if (account.kind === 'check') {
      if (row.credentials_version === null) throw new AccountGoneError();
      if (!hasCurrentCredentials({ credentialsVersion: row.credentials_version }, account.credentialsVersion)) {
        throw new CredentialsChangedError();
      }
    }
    if (row.blocked_for !== null) throw new ChatTurnLimitError(row.blocked_for);
    if (row.id === null) throw new ConversationNotFoundError();
    return {
      conversationId: row.id,
      history: row.history.map((message) => ({ ...toStoredMessage(message), seq: message.seq })),
      summary: row.summary && {
        id: row.summary.id,
        content: row.summary.content,
        lastSeq: row.summary.last_seq,
        messages: row.summary.messages,
      },
      pendingConfirmation: row.pending ? toPendingConfirmation(row.pending) : null,
    };
  }

  async openWithQuestion(input: Parameters<ConversationStore['openWithQuestion']>[0]): Promise<string> {
    const { userId, title, question, now } = input;
    const conversationId = randomUUID();
    // The person is told it waits (confirmation.waiting) by the same statement that stores it.
    const notified = notificationInsert({
      recipientId: userId,
      event: 'confirmation.waiting',
      subject: { kind: 'confirmation', id: question.id, conversationId },
      facts: { tool: question.tool, expiresAt: question.expiresAt.toISOString() },
      at: now,
    });
    const row = await selectRow(
      this.dataSource,
      sql`WITH c AS (INSERT INTO conversations (id, user_id, title, created_at, updated_at)
                     VALUES (${conversationId}, ${userId}, ${title}, ${now}, ${now}) RETURNING id),
               m AS (INSERT INTO messages (conversation_id, role, content, decision_type, status, created_at)
                     SELECT c.id, 'assistant', ${question.prompt}, 'REQUEST_CONFIRMATION', 'completed', ${now} FROM c),
               p AS (INSERT INTO pending_confirmations (id, user_id, conversation_id, tool, arguments, arguments_hash, prompt,
                       created_at, expires_at)
                     SELECT ${question.id}, ${userId}, c.id, ${question.tool}, ${JSON.stringify(question.arguments)},
                       ${argumentsHash(question.arguments)}, ${question.prompt}, ${now}, ${question.expiresAt} FROM c),
               n AS (${notified})
          SELECT id FROM c`,
      z.object({ id: z.string() }),
    );
    if (!row) throw new Error('the conversation was not created');
    return row.id;
  }

  async finishTurn(turn: FinishedTurn, now: Date): Promise<void> {
    const { assistantMessage: message, decision } = turn;
    const { conversationId, userId } = turn;
    // Whatever the row holds (normally 'in_progress'; the sweeper's answer if this turn ran
    // far past its deadline), the answer the person was given is what stays.
    const parts: Statement[] = [
      sql`m AS (UPDATE messages SET content = ${message.content}, tool_calls = ${jsonColumn(message.toolCalls)},
                  decision_type = ${message.decisionType}, status = ${message.status}, created_at = ${now}
                WHERE decision_id = ${decision.id} AND conversation_id = ${conversationId})`,
      sql`d AS (${turnDecisionSettling({ ...decision, decisionType: message.decisionType }, userId)})`,
    ];
    if (turn.newSummary) {
      const summary = turn.newSummary;
      parts.push(sql`s AS (INSERT INTO conversation_summaries (id, conversation_id, decision_id, content, last_seq, messages, created_at)
                           VALUES (${summary.id}, ${conversationId}, ${decision.id}, ${summary.content}, ${summary.lastSeq},
                                   ${summary.messages}, ${now}))`);
    }
    if (turn.droppedPendingConfirmationId) {
      parts.push(sql`x AS (UPDATE pending_confirmations SET resolved_at = ${now}, resolution = 'dropped'
                           WHERE id = ${turn.droppedPendingConfirmationId} AND resolved_at IS NULL)`);
    }
    let last = sql`UPDATE conversations SET updated_at = ${now} WHERE id = ${conversationId}`;
    if (turn.newPendingConfirmation) {
      const pending = turn.newPendingConfirmation;
      parts.push(sql`u AS (${last})`);
      last = sql`INSERT INTO pending_confirmations (id, user_id, conversation_id, tool, arguments, arguments_hash, prompt, created_at,
                   expires_at)
                 VALUES (${pending.id}, ${userId}, ${conversationId}, ${pending.tool}, ${JSON.stringify(pending.arguments)},
                         ${argumentsHash(pending.arguments)}, ${pending.prompt}, ${now}, ${pending.expiresAt})`;
    }
    await run(this.dataSource, sql`WITH ${join(parts, ',\n')}\n${last}`);
  }

  async takePendingConfirmation(
    id: string,
    userId: string,
    resolution: 'confirmed' | 'cancelled',
    now: Date,
  ): Promise<PendingConfirmation | null> {
    const row = await selectRow(
      this.dataSource,
      sql`UPDATE pending_confirmations SET resolved_at = ${now}, resolution = ${resolution}
          WHERE id = ${id} AND user_id = ${userId} AND resolved_at IS NULL AND expires_at > ${now}
          RETURNING ${PENDING_COLUMNS}`,
      PENDING_ROW,
    );
    return row && toPendingConfirmation(row);
  }

  async openPendingConfirmation(userId: string, conversationId: string, now: Date): Promise<PendingConfirmation | null> {
    const row = await selectRow(
      this.dataSource,
      sql`SELECT ${PENDING_COLUMNS} FROM (
            SELECT ${PENDING_COLUMNS} FROM pending_confirmations
            WHERE conversation_id = ${conversationId} AND resolved_at IS NULL
            ORDER BY created_at DESC LIMIT 1) p
          WHERE user_id = ${userId} AND expires_at > ${now}`,
      PENDING_ROW,
    );
    return row && toPendingConfirmation(row);
  }

  async confirmationRecord(userId: string, conversationId: string, confirmationId: string): Promise<ConfirmationRecord | null> {
    const row = await selectRow(
      this.dataSource,
      sql`SELECT tool, created_at, expires_at, resolution, resolved_at FROM pending_confirmations
          WHERE id = ${confirmationId} AND conversation_id = ${conversationId} AND user_id = ${userId}`,
      RECORD_ROW,
    );
    return (
      row && {
        tool: row.tool,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
        resolution: row.resolution,
        resolvedAt: row.resolved_at,
      }
    );
  }

  async listConversations(userId: string, limit: number, cursor: string | null): Promise<Page<ConversationSummary>> {
    const after = decodeCursor(cursor, isTimeAndIdCursor);
    const rows = await selectRows(
      this.dataSource,
      sql`SELECT id, title, created_at, updated_at, updated_at::text AS updated_key FROM conversations
          WHERE user_id = ${userId} ${after ? sql`AND (updated_at, id) < (${after[0]}::timestamptz, ${after[1]}::uuid)` : empty}
          ORDER BY updated_at DESC, id DESC LIMIT ${limit + 1}`,
      CONVERSATION_ROW,
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
    const rows = await selectRows(
      this.dataSource,
      sql`SELECT m.seq, m.id, m.role, m.content, m.tool_calls, m.decision_type, m.status, m.created_at
          FROM conversations c JOIN messages m ON m.conversation_id = c.id
          WHERE c.id = ${conversationId} AND c.user_id = ${userId} AND m.status IS DISTINCT FROM ${IN_PROGRESS_STATUS}
            ${before ? sql`AND m.seq < ${before}::bigint` : empty}
          ORDER BY m.seq DESC LIMIT ${limit + 1}`,
      MESSAGE_ROW,
    );
    if (rows.length === 0 && !(await this.owns(userId, conversationId))) return null;
    const page = rows.slice(0, limit);
    return {
      items: page.reverse().map(toStoredMessage),
      nextCursor: rows.length > limit ? encodeCursor(String(page[0].seq)) : null,
    };
  }

  private async owns(userId: string, conversationId: string): Promise<boolean> {
    return exists(this.dataSource, sql`SELECT 1 FROM conversations WHERE id = ${conversationId} AND user_id = ${userId}`);
  }
}

function argumentsHash(args: ToolArguments): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex');
}

function toPendingConfirmation(row: z.output<typeof PENDING_ROW>): PendingConfirmation | null {
  // The hash binds the stored call to what was shown: a row altered since is not run.
  if (argumentsHash(row.arguments) !== row.arguments_hash) return null;
  return {
    id: row.id,
    userId: row.user_id,
    conversationId: row.conversation_id,
    tool: row.tool,
    arguments: row.arguments,
    prompt: row.prompt,
    expiresAt: row.expires_at,
  };
}

function toStoredMessage(row: z.output<typeof MESSAGE_ROW>): StoredMessage {
  return {
    id: row.id,
    role: row.role,
    content: row.content,
    toolCalls: row.tool_calls,
    decisionType: row.decision_type,
    status: row.status,
    createdAt: row.created_at,
  };
}
