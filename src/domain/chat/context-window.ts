import { type AgentMessage, messageCharacters, toolCharacters, type ToolDefinition } from '../agent/tools';
import type { TaskChange } from './summary-facts';

/**
 * How much of a conversation the model reads, in tokens. Tokens are estimated from
 * characters (about four a token, the common rate of the providers' tokenizers on English,
 * plus a few per message for its framing): close enough to size a window, and the same
 * for every provider.
 */
const CHARS_PER_TOKEN = 4;
const TOKENS_PER_MESSAGE = 4;

export function estimatedTokens(messages: readonly AgentMessage[]): number {
  return Math.ceil(messageCharacters(messages) / CHARS_PER_TOKEN) + TOKENS_PER_MESSAGE * messages.length;
}

/** What every request of a turn carries besides the conversation: the instructions and the tools. */
export function estimatedFixedTokens(systemPrompt: string, tools: readonly ToolDefinition[]): number {
  return Math.ceil((systemPrompt.length + toolCharacters(tools)) / CHARS_PER_TOKEN);
}

/** One exchange of the stored conversation, as the model reads it: never split. */
export interface WindowTurn {
  /** The stored messages it is made of, by their sequence numbers. */
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly storedMessages: number;
  /** A person's message, then the answer's tool calls, their results and its text. */
  readonly messages: readonly AgentMessage[];
  /** What the answer's tool calls did to tasks, in call order: what a summary of the turn records. */
  readonly done: readonly TaskChange[];
  readonly tokens: number;
}

export interface WindowPlan {
  /** The newest turns, oldest first: what the model reads word for word. */
  readonly kept: readonly WindowTurn[];
  /** The older turns, oldest first, to fold into the summary before this turn runs. */
  readonly toSummarize: readonly WindowTurn[];
}

/**
 * Chooses what of the conversation since its last summary the model reads. While it fits
 * `budget` tokens (and `maxStoredMessages`), all of it. Past that, only the newest turns
 * that fit in half of each, and the rest is summarised: the next turns then fit again for
 * a while, so a summary is made now and then, not on every turn. Turns are kept whole, so
 * a tool call never reaches the model without its result.
 */
export function planWindow(turns: readonly WindowTurn[], budget: number, maxStoredMessages: number): WindowPlan {
  const tokens = turns.reduce((sum, turn) => sum + turn.tokens, 0);
  const stored = turns.reduce((sum, turn) => sum + turn.storedMessages, 0);
  if (tokens <= budget && stored < maxStoredMessages) return { kept: turns, toSummarize: [] };
  let keptTokens = 0;
  let keptStored = 0;
  let first = turns.length;
  while (first > 0) {
    const turn = turns[first - 1];
    if (keptTokens + turn.tokens > budget / 2 || keptStored + turn.storedMessages > maxStoredMessages / 2) break;
    keptTokens += turn.tokens;
    keptStored += turn.storedMessages;
    first--;
  }
  return { kept: turns.slice(first), toSummarize: turns.slice(0, first) };
}
