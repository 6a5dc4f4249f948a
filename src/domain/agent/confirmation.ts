import { consoleLink } from '../notifications/notification';
import { type HoldEnding, holdEndingSentence } from '../shared/hold-ending';
import { clipped, inBrief, joinedWithAnd } from '../shared/words';
import { CHAT_TURN } from '../policy/policy';
import type { ToolArguments } from './tool-call-validation';
import type { ToolWords } from './tool-words';

/** A destructive call waiting for the person's yes; single use, bound to everything below. */
export interface PendingConfirmation {
  readonly id: string;
  readonly userId: string;
  readonly conversationId: string;
  readonly tool: string;
  /** Resolved to exact targets (task numbers), so "yes" acts on what was shown. */
  readonly arguments: ToolArguments;
  readonly prompt: string;
  readonly expiresAt: Date;
}

export const CONFIRMATION_TTL_MS = 10 * 60 * 1000;

export type ConfirmationReply = 'confirm' | 'cancel' | 'other';

const CONFIRM =
  /^(yes|y|yep|yeah|sure|ok|okay|confirm|confirmed|do it|go ahead|go on)([ ,!.]+(delete|delete (it|them)|please|confirm|do it))?[ !.]*$/i;
const CANCEL =
  /^(no|n|nope|cancel|stop|don'?t|never ?mind|keep (it|them)|abort)([ ,!.]+(thanks|thank you|cancel|don'?t delete( it| them)?))?[ !.]*$/i;

/** "yes delete" / "yes" confirm, "no" / "cancel" cancel; anything else is a new request. */
export function interpretConfirmationReply(message: string): ConfirmationReply {
  const text = message.trim().replace(/\s+/g, ' ');
  if (CONFIRM.test(text)) return 'confirm';
  if (CANCEL.test(text)) return 'cancel';
  return 'other';
}

export function isExpired(action: Pick<PendingConfirmation, 'expiresAt'>, now: Date): boolean {
  return action.expiresAt.getTime() <= now.getTime();
}

/**
 * What the chat answers a yes or a no to a question that had expired: "That request expired
 * unanswered after 10 minutes, so nothing was changed. Ask me again if you still want it."
 * Nobody said no: the time ran out.
 */
export const EXPIRED_CONFIRMATION_REPLY = `${holdEndingSentence('expired', {
  kind: 'question',
  what: 'that request',
  who: 'you',
  waitedMs: CONFIRMATION_TTL_MS,
  so: 'nothing was changed',
})} Ask me again if you still want it.`;

/**
 * What became of a pending confirmation: still `open`; answered yes (`confirmed`) or no
 * (`cancelled`); `expired` unanswered (or answered too late); or `set-aside`: the person moved
 * on with another message and the question lapsed unanswered.
 */
export const CONFIRMATION_STATES = ['open', 'confirmed', 'cancelled', 'expired', 'set-aside'] as const;
export type ConfirmationState = (typeof CONFIRMATION_STATES)[number];

/** A stored pending confirmation as its state is read from it. */
export interface ConfirmationRecord {
  readonly tool: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly resolution: 'confirmed' | 'cancelled' | 'dropped' | null;
  readonly resolvedAt: Date | null;
}

/** The state of a stored confirmation at `now`; a question dropped at or after its expiry was closed as expired. */
export function confirmationState(record: ConfirmationRecord, now: Date): ConfirmationState {
  switch (record.resolution) {
    case null:
      return isExpired(record, now) ? 'expired' : 'open';
    case 'confirmed':
      return 'confirmed';
    case 'cancelled':
      return 'cancelled';
    case 'dropped':
      return record.resolvedAt !== null && record.resolvedAt.getTime() < record.expiresAt.getTime() ? 'set-aside' : 'expired';
  }
}

/**
 * The state of a confirmation in the person's words (holdEndingSentence): "The question expired
 * unanswered after 10 minutes, so nothing was deleted.", "You said no, so nothing was deleted."
 */
export function confirmationStateSentence(state: ConfirmationState, record: ConfirmationRecord): string {
  const hold = {
    kind: 'question' as const,
    what: 'the question',
    who: 'you',
    waitedMs: record.expiresAt.getTime() - record.createdAt.getTime(),
    so: record.tool === BULK_CHANGE ? 'nothing was changed' : 'nothing was deleted',
  };
  switch (state) {
    case 'open':
      return 'The question is waiting for your answer.';
    case 'confirmed':
      return holdEndingSentence('decided-yes', hold);
    case 'cancelled':
      return holdEndingSentence('decided-no', hold);
    case 'expired':
      return holdEndingSentence('expired', hold);
    case 'set-aside':
      return holdEndingSentence('dismissed', hold);
  }
}

/** "'A', 'B' and 'C'", or "'A', 'B', 'C' and 127 more" for a long list. */
export function titlesInBrief(titles: readonly string[]): string {
  return inBrief(titles.map((title) => `'${title}'`));
}

/**
 * A confirmation question is the server's own sentence, added to the reply whatever the
 * reply's bound (AGENT_MAX_REPLY_CHARS, 500 by default), so it is short by construction: it
 * names at most QUESTION_NAMED_MAX things, each quoted within QUOTED_NAME_CHARS, and counts
 * the rest. The full list is the pending confirmation's data (confirmationTargets).
 */
export const QUESTION_NAMED_MAX = 5;
const QUESTION_NAMED_WHEN_MANY = 3;

/** "A, B and C", or for a longer list "A, B, C and 4 more". */
export function inQuestion(names: readonly string[]): string {
  return names.length > QUESTION_NAMED_MAX
    ? joinedWithAnd([...names.slice(0, QUESTION_NAMED_WHEN_MANY), `${names.length - QUESTION_NAMED_WHEN_MANY} more`])
    : joinedWithAnd(names);
}

/** What the chat's deletion question ends with: the words that confirm it. */
export const CHAT_REPLY_HINT = " Reply 'yes delete' to confirm.";

/** The question without the chat's "reply 'yes delete'": an MCP client asks with its own buttons. */
export function withoutChatReplyHint(prompt: string): string {
  return prompt.endsWith(CHAT_REPLY_HINT) ? prompt.slice(0, -CHAT_REPLY_HINT.length) : prompt;
}

/** Calls that change existing things (ToolDefinition.changesExisting) one chat turn makes without asking. */
export const BULK_CHANGES_MAX = 3;

/** The pending confirmation of a bulk change: its arguments are `{calls}`, run one by one on the person's yes. */
export const BULK_CHANGE = 'bulk_change';

export interface PlannedCall {
  readonly tool: string;
  readonly arguments: ToolArguments;
}

/** The stored arguments of a bulk change. */
export function bulkChangeArguments(calls: readonly PlannedCall[]): ToolArguments {
  return { calls: calls.map((call) => ({ tool: call.tool, arguments: call.arguments })) };
}

/** The calls of a stored bulk change; null when what is stored is not one. */
export function bulkChangeCalls(args: ToolArguments): PlannedCall[] | null {
  const { calls } = args;
  if (!Array.isArray(calls) || calls.length === 0) return null;
  const planned: PlannedCall[] = [];
  for (const call of calls as unknown[]) {
    const { tool, arguments: callArguments } = (call ?? {}) as { tool?: unknown; arguments?: unknown };
    if (typeof tool !== 'string' || typeof callArguments !== 'object' || callArguments === null || Array.isArray(callArguments))
      return null;
    planned.push({ tool, arguments: callArguments as ToolArguments });
  }
  return planned;
}

/**
 * "That's a big action: complete task 1, complete task 2, update 'rent' and complete task 4.
 * Confirm with 'yes'." Each call is named in its product's words (ToolWords.callInWords), so
 * the person sees what "yes" runs.
 */
export function bulkChangePrompt(calls: readonly PlannedCall[], words: ToolWords): string {
  return `That's a big action: ${inQuestion(calls.map((call) => words.callInWords(call)))}. Confirm with 'yes'.`;
}

/** Things a pending confirmation's data lists one by one (the API's `pendingConfirmation.items`); it counts the rest. */
export const CONFIRMATION_ITEMS_MAX = 10;
/** How much of each item it gives; a longer one is cut with "…". */
export const CONFIRMATION_ITEM_CHARS = 100;

/** What "yes" acts on: how many things, and the first CONFIRMATION_ITEMS_MAX of them. */
export interface ConfirmationTargets {
  readonly count: number;
  readonly items: readonly string[];
}

/**
 * What "yes" acts on, read from the stored call itself and never from the words around the
 * question, in its product's words (ToolWords): what a call acts on (the tasks a deletion
 * deletes, by the titles they were shown with), each change of a bulk change ("complete task
 * 3"), or, for a chat turn a rule asks about, the month's spend as it was decided. What a
 * person clicks is drawn from this alone.
 */
export function confirmationTargets(action: Pick<PendingConfirmation, 'tool' | 'arguments'>, words: ToolWords): ConfirmationTargets {
  const all = everyTarget(action, words);
  return { count: all.length, items: all.slice(0, CONFIRMATION_ITEMS_MAX).map((item) => clipped(item, CONFIRMATION_ITEM_CHARS)) };
}

function everyTarget({ tool, arguments: args }: Pick<PendingConfirmation, 'tool' | 'arguments'>, words: ToolWords): string[] {
  if (tool === BULK_CHANGE) return (bulkChangeCalls(args) ?? []).map((call) => words.callInWords(call));
  if (tool === CHAT_TURN) return [typeof args.spend === 'string' ? args.spend : 'this turn'];
  return words.confirmationItems({ tool, arguments: args });
}

/**
 * A confirmed call that found what the person was asked about changed since: nothing ran.
 * Its error details may carry a new question about what is there now (`askAgain`).
 */
export const CONFIRMATION_STALE = 'CONFIRMATION_STALE';
/** A destructive call refused because nobody can ask the person for it on this channel. */
export const CONFIRMATION_REQUIRED = 'CONFIRMATION_REQUIRED';

/** What a destructive tool called over MCP does: refused until confirmed in the chat (default), or run at once. */
export const MCP_DESTRUCTIVE_TOOL_MODES = ['confirm-in-chat', 'allow'] as const;
export type McpDestructiveToolMode = (typeof MCP_DESTRUCTIVE_TOOL_MODES)[number];

/** What a destructive tool's description adds, so that it tells each channel what the server will do. */
export function destructiveToolNotice(source: 'chat' | 'mcp', mcpMode: McpDestructiveToolMode): string {
  if (source === 'chat') return "Always needs the person's confirmation, which the server asks for.";
  if (mcpMode === 'allow') {
    return "Over this connection it deletes at once, without asking the person: this server's operator allowed it.";
  }
  return (
    'Over this connection it deletes only after the person confirms in their MCP client, which the server asks ' +
    `(MCP elicitation, on a session). A client that cannot be asked gets ${CONFIRMATION_REQUIRED} and nothing is ` +
    'deleted yet: the question then waits for the person in the Bridle console, at the link the error gives.'
  );
}

/** Why a destructive call over MCP did nothing, and how the person can have it done (in the console at `consoleUrl`). */
export function confirmInChatMessage(chatRequest: string | null, consoleUrl?: string): string {
  const where = consoleUrl
    ? `the Bridle chat (${withoutTrailingSlash(consoleUrl)}/#chat, or the chat API)`
    : 'the Bridle chat (web console or chat API)';
  const how = chatRequest ? `say '${chatRequest}' in ${where}, then 'yes delete'` : `ask for it in ${where}, then reply 'yes delete'`;
  return `This needs the person's confirmation and this connection cannot ask for it, so nothing was deleted. To do it, the person can ${how}.`;
}

/**
 * What an MCP client that cannot ask the person is told when the server has asked for it in
 * the console: the question, where it waits (`link`, or the conversation's title when the
 * server has no public URL), and until when. Nothing was deleted.
 */
export function confirmInConsoleMessage(question: { asked: string; title: string; link: string | null; expiresAt: Date }): string {
  const where = question.link ?? `the Bridle chat, in the conversation '${question.title}'`;
  return (
    `This needs the person's confirmation and this connection cannot ask for it, so nothing was deleted yet. ` +
    `The question waits for them at ${where} until ${question.expiresAt.toISOString()}: ${question.asked.trim()}`
  );
}

/**
 * How a deletion's question to the person ended, as their client and the audit log say it
 * (holdEndingSentence): "The question expired unanswered after 5 minutes, so nothing was
 * deleted." `waitedMs`: how long it was open.
 */
export function deletionQuestionEnding(ending: HoldEnding, waitedMs: number): string {
  return holdEndingSentence(ending, { kind: 'question', what: 'the question', who: 'the person', waitedMs, so: 'nothing was deleted' });
}

/** The console's address of a question waiting in a conversation (its chat page, opened on it with the question in view). */
export function consoleConversationLink(consoleUrl: string, conversationId: string, confirmationId: string): string {
  return `${withoutTrailingSlash(consoleUrl)}/${consoleLink({ kind: 'confirmation', id: confirmationId, conversationId })}`;
}

function withoutTrailingSlash(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end -= 1;
  return url.slice(0, end);
}
