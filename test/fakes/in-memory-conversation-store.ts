import { randomUUID } from 'node:crypto';
import {
  type ConversationDigest,
  ConversationStore,
  type DecisionLogEntry,
  type FinishedTurn,
  type HistoryMessage,
  type StartTurnInput,
  type TurnContext,
} from '../../src/application/chat/ports/conversation-store.port';
import type { Page } from '../../src/application/shared/page';
import type { ConfirmationRecord, PendingConfirmation } from '../../src/domain/agent/confirmation';
import {
  type AnswerStatus,
  ConversationNotFoundError,
  conversationTitle,
  type ConversationSummary,
  type StoredMessage,
  type ToolCallRecord,
} from '../../src/domain/chat/conversation';
import type { ToolArguments } from '../../src/domain/agent/tool-call-validation';
import { jsonColumn } from '../../src/infrastructure/persistence/json-column';

/** The status of an answer whose turn is still running: never shown, never replayed. */
const IN_PROGRESS = 'in_progress';

interface StoredConversation {
  readonly id: string;
  readonly userId: string;
  readonly title: string;
  readonly createdAt: Date;
  updatedAt: Date;
}

interface Row {
  readonly seq: number;
  readonly id: string;
  readonly conversationId: string;
  readonly role: 'user' | 'assistant';
  content: string;
  toolCalls: ToolCallRecord[];
  decisionType: StoredMessage['decisionType'];
  status: AnswerStatus | typeof IN_PROGRESS | null;
  readonly decisionId: string | null;
  createdAt: Date;
}

interface StoredPending extends PendingConfirmation {
  readonly createdAt: Date;
  resolvedAt: Date | null;
  resolution: 'confirmed' | 'cancelled' | 'dropped' | null;
}

/** The decision log: a row is `pending` from startTurn until finishTurn fills it in. */
export type DecisionRow = { readonly startedAt: Date } & (
  { readonly id: string; readonly userId: string; readonly conversationId: string; readonly status: 'pending' } | DecisionLogEntry
);

/**
 * Chat state in memory, with PostgresConversationStore's semantics for a turn: the context
 * is read before the turn's own message is stored (the summary, the newest `window`
 * finished messages after it, the newest unresolved pending confirmation, expired or not:
 * the use case answers an expired one), the answer is stored as a placeholder filled in by
 * finishTurn, tool calls go through the same JSON column rules (so replayed results are
 * plain JSON, as read back from the database), and a pending confirmation is taken once,
 * only before it expires. Listing conversations and messages is not used here, and the
 * per-minute turn limit is not counted nor the account checked (test/persistence/chat-turn-opening.spec.ts
 * covers both).
 */
export class InMemoryConversationStore extends ConversationStore {
  readonly conversations: StoredConversation[] = [];
  readonly messages: Row[] = [];
  readonly summaries: (ConversationDigest & { readonly conversationId: string })[] = [];
  readonly pendingConfirmations: StoredPending[] = [];
  readonly decisions: DecisionRow[] = [];
  private seq = 0;

  startTurn(input: StartTurnInput): Promise<TurnContext & { conversationId: string }> {
    const { userId, message, decisionId, window, now } = input;
    let conversation: StoredConversation | undefined;
    if (input.conversationId === null) {
      conversation = { id: randomUUID(), userId, title: conversationTitle(message), createdAt: now, updatedAt: now };
      this.conversations.push(conversation);
    } else {
      conversation = this.conversations.find((c) => c.id === input.conversationId && c.userId === userId);
      if (!conversation) return Promise.reject(new ConversationNotFoundError());
      conversation.updatedAt = now;
    }
    const conversationId = conversation.id;

    // Read before this turn's rows are added, as the statement's snapshot is.
    const summary = this.summaries.filter((s) => s.conversationId === conversationId).sort((a, b) => b.lastSeq - a.lastSeq)[0] ?? null;
    const finished = this.messages
      .filter((m) => m.conversationId === conversationId && m.status !== IN_PROGRESS && m.seq > (summary?.lastSeq ?? 0))
      .sort((a, b) => a.seq - b.seq);
    const history = finished.slice(Math.max(0, finished.length - window)).map(historyMessage);
    const pending = this.newestOpenPending(conversationId);

    this.messages.push(
      this.row({ conversationId, role: 'user', content: message, status: null, decisionId: null, createdAt: now }),
      this.row({ conversationId, role: 'assistant', content: '', status: IN_PROGRESS, decisionId, createdAt: now }),
    );
    this.decisions.push({ id: decisionId, userId, conversationId, startedAt: now, status: 'pending' });
    return Promise.resolve({
      conversationId,
      history,
      summary: summary && { id: summary.id, content: summary.content, lastSeq: summary.lastSeq, messages: summary.messages },
      pendingConfirmation: pending && pendingConfirmation(pending),
    });
  }

  finishTurn(turn: FinishedTurn, now: Date): Promise<void> {
    const { assistantMessage: answer, decision } = turn;
    const row = this.messages.find((m) => m.decisionId === decision.id && m.conversationId === turn.conversationId);
    if (row) {
      row.content = answer.content;
      row.toolCalls = JSON.parse(jsonColumn(answer.toolCalls)) as ToolCallRecord[];
      row.decisionType = answer.decisionType;
      row.status = answer.status;
      row.createdAt = now;
    }
    const index = this.decisions.findIndex((d) => d.id === decision.id && d.userId === turn.userId);
    if (index >= 0) this.decisions[index] = { ...decision, startedAt: this.decisions[index].startedAt };
    if (turn.newSummary) this.summaries.push({ ...turn.newSummary, conversationId: turn.conversationId });
    if (turn.droppedPendingConfirmationId) {
      const dropped = this.pendingConfirmations.find((p) => p.id === turn.droppedPendingConfirmationId && p.resolvedAt === null);
      if (dropped) Object.assign(dropped, { resolvedAt: now, resolution: 'dropped' });
    }
    const conversation = this.conversations.find((c) => c.id === turn.conversationId);
    if (conversation) conversation.updatedAt = now;
    if (turn.newPendingConfirmation) {
      const pending = turn.newPendingConfirmation;
      this.pendingConfirmations.push({
        id: pending.id,
        userId: turn.userId,
        conversationId: turn.conversationId,
        tool: pending.tool,
        arguments: JSON.parse(JSON.stringify(pending.arguments)) as ToolArguments,
        prompt: pending.prompt,
        expiresAt: pending.expiresAt,
        createdAt: now,
        resolvedAt: null,
        resolution: null,
      });
    }
    return Promise.resolve();
  }

  takePendingConfirmation(
    id: string,
    userId: string,
    resolution: 'confirmed' | 'cancelled',
    now: Date,
  ): Promise<PendingConfirmation | null> {
    const pending = this.pendingConfirmations.find(
      (p) => p.id === id && p.userId === userId && p.resolvedAt === null && p.expiresAt.getTime() > now.getTime(),
    );
    if (!pending) return Promise.resolve(null);
    Object.assign(pending, { resolvedAt: now, resolution });
    return Promise.resolve(pendingConfirmation(pending));
  }

  openPendingConfirmation(userId: string, conversationId: string, now: Date): Promise<PendingConfirmation | null> {
    const pending = this.newestOpenPending(conversationId);
    const open = pending && pending.userId === userId && pending.expiresAt.getTime() > now.getTime();
    return Promise.resolve(open ? pendingConfirmation(pending) : null);
  }

  confirmationRecord(userId: string, conversationId: string, confirmationId: string): Promise<ConfirmationRecord | null> {
    const stored = this.pendingConfirmations.find(
      (p) => p.id === confirmationId && p.conversationId === conversationId && p.userId === userId,
    );
    return Promise.resolve(
      stored
        ? {
            tool: stored.tool,
            createdAt: stored.createdAt,
            expiresAt: stored.expiresAt,
            resolution: stored.resolution,
            resolvedAt: stored.resolvedAt,
          }
        : null,
    );
  }

  openWithQuestion(): Promise<string> {
    return Promise.reject(new Error('InMemoryConversationStore.openWithQuestion: not used here'));
  }

  listConversations(_userId: string, _limit: number, _cursor: string | null): Promise<Page<ConversationSummary>> {
    return Promise.reject(new Error('InMemoryConversationStore.listConversations: not used here'));
  }

  listMessages(_userId: string, _conversationId: string, _limit: number, _cursor: string | null): Promise<Page<StoredMessage> | null> {
    return Promise.reject(new Error('InMemoryConversationStore.listMessages: not used here'));
  }

  /** Newest first by creation time; of two made at the same instant, the later stored. */
  private newestOpenPending(conversationId: string): StoredPending | null {
    let newest: StoredPending | null = null;
    for (const pending of this.pendingConfirmations) {
      if (pending.conversationId !== conversationId || pending.resolvedAt !== null) continue;
      if (newest === null || pending.createdAt.getTime() >= newest.createdAt.getTime()) newest = pending;
    }
    return newest;
  }

  private row(fields: Omit<Row, 'seq' | 'id' | 'toolCalls' | 'decisionType'>): Row {
    return { ...fields, seq: ++this.seq, id: randomUUID(), toolCalls: [], decisionType: null };
  }
}

function historyMessage(row: Row): HistoryMessage {
  return {
    seq: row.seq,
    id: row.id,
    role: row.role,
    content: row.content,
    toolCalls: row.toolCalls,
    decisionType: row.decisionType,
    status: row.status as AnswerStatus | null,
    createdAt: row.createdAt,
  };
}

function pendingConfirmation(stored: StoredPending): PendingConfirmation {
  return {
    id: stored.id,
    userId: stored.userId,
    conversationId: stored.conversationId,
    tool: stored.tool,
    // Read back from JSON each time, as from the database.
    arguments: JSON.parse(JSON.stringify(stored.arguments)) as ToolArguments,
    prompt: stored.prompt,
    expiresAt: stored.expiresAt,
  };
}
