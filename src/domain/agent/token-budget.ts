import { type AgentMessage, messageCharacters, toolCharacters, type ToolDefinition } from './tools';

/**
 * An upper bound of a model request's prompt tokens, from its characters: two characters
 * per token, where English runs near four. A reservation made with it covers what the
 * provider then reports, so a person's daily budget holds even while turns race.
 */
export function promptTokensAtMost(request: {
  readonly systemPrompt: string;
  readonly messages: readonly AgentMessage[];
  readonly tools: readonly ToolDefinition[];
}): number {
  // 8 characters of framing a message on top of its text, counted as tokens at 2 a token.
  const chars =
    request.systemPrompt.length + messageCharacters(request.messages) + 16 * request.messages.length + toolCharacters(request.tools);
  return Math.ceil(chars / 2);
}

/** The day a budget counts in: the UTC date, `2026-11-22`. */
export function budgetDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** The month a budget counts in: the UTC calendar month, `2026-11`. */
export function budgetMonth(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/** Thrown before a model call that the person's budget for the day or the month cannot cover: nothing was sent to the model. */
export class TokenBudgetSpentError extends Error {
  constructor(readonly budget: 'day' | 'month' = 'day') {
    super(`The person's ${budget === 'day' ? 'daily' : 'monthly'} budget cannot cover another model call`);
    this.name = 'TokenBudgetSpentError';
  }
}
