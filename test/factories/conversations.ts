import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { App } from 'supertest/types';
import type { DecisionLogEntry, FinishedTurn, StartTurnInput } from '../../src/application/chat/ports/conversation-store.port';
import type { OutreachDecision } from '../../src/application/outreach/ports/outreach-cycle-store.port';
import type { SignedInUser } from '../support/accounts';

/** What the API answers a chat turn with, as far as the tests read it. */
export interface ChatTurnBody {
  readonly conversationId: string;
  readonly response: string;
  readonly decision: { readonly id: string };
  readonly toolCalls: { readonly tool: string; readonly success: boolean }[];
}

/** One chat turn over HTTP, starting a conversation or going on with `conversationId`; fails unless it answers 200. */
export async function chatTurn(http: App, user: SignedInUser, message: string, conversationId?: string): Promise<ChatTurnBody> {
  const res = await request(http)
    .post(`/api/${user.userId}/chat`)
    .set(user.auth)
    .send({ message, ...(conversationId ? { conversationId } : {}) })
    .expect(200);
  return res.body as ChatTurnBody;
}

/**
 * What the conversation store opens a turn with: a new conversation, "add milk", the offline
 * model, a window of 20, a limit of 1000 turns a minute, the account already checked, now.
 */
export function aTurnStart(userId: string, overrides: Partial<StartTurnInput> = {}): StartTurnInput {
  return {
    userId,
    conversationId: null,
    message: 'add milk',
    decisionId: randomUUID(),
    model: { provider: 'offline', model: 'test' },
    window: 20,
    turnsPerMinute: 1000,
    account: { kind: 'checked-by-guard' },
    now: new Date(),
    ...overrides,
  };
}

/** The measures of a decision that took one call of the offline model, free and quick. */
const OFFLINE_MEASURES = {
  iterations: 1,
  provider: 'offline',
  model: 'offline',
  promptTokens: 0,
  completionTokens: 0,
  cost: null,
  durationMs: 1,
  failureClass: null,
  providerRequestId: null,
} as const;

/**
 * The end of a turn opened as `turn`: the answer `Done.` with no tool call, and its decision
 * (a completed RESPOND_ONLY of the offline model with nothing asked) with what `overrides` sets.
 */
export function aFinishedTurn(
  turn: { userId: string; conversationId: string; decisionId: string },
  overrides: Partial<Omit<DecisionLogEntry, 'id' | 'userId' | 'conversationId'>> & { answer?: string } = {},
): FinishedTurn {
  const { answer = 'Done.', ...changes } = overrides;
  const decision: DecisionLogEntry = {
    ...OFFLINE_MEASURES,
    id: turn.decisionId,
    userId: turn.userId,
    conversationId: turn.conversationId,
    decisionType: 'RESPOND_ONLY',
    clarificationQuestion: null,
    status: 'completed',
    context: null,
    intentType: 'NONE',
    outcomeCategory: 'SUCCEEDED',
    sampling: { temperature: 0, maxTokens: 1024 },
    ...changes,
  };
  return {
    userId: turn.userId,
    conversationId: turn.conversationId,
    assistantMessage: { content: answer, toolCalls: [], decisionType: decision.decisionType, status: decision.status },
    decision,
    newPendingConfirmation: null,
    droppedPendingConfirmationId: null,
    newSummary: null,
  };
}

/** An outreach cycle's decision on a campaign's task: a completed LinkedIn look-up by the offline model, made now. */
export function anOutreachDecision(
  on: { ownerId: string; campaignId: string; taskId: string | null },
  overrides: Partial<OutreachDecision> = {},
): OutreachDecision {
  return {
    ...OFFLINE_MEASURES,
    id: randomUUID(),
    ...on,
    decisionType: 'linkedin_scrape_profile',
    status: 'completed',
    createdAt: new Date(),
    ...overrides,
  };
}
