import { DomainValidationError } from '../shared/domain-error';

/** About how long a reply should be: what a person reads at a glance. */
export const REPLY_TARGET_CHARS = 500;

/** Bounds on one agent turn; every field is configurable. */
export interface AgentLimits {
  /**
   * Model calls in one turn that may use tools. When the model still wants tools after the
   * last, one more call without tools words the answer from what was gathered.
   */
  readonly maxIterations: number;
  /** Tool calls in one turn, over all iterations. */
  readonly maxToolCalls: number;
  /** Wall-clock budget of the whole turn, model and tools included. */
  readonly turnTimeoutMs: number;
  /** Budget of one tool call. */
  readonly toolTimeoutMs: number;
  /** Stored messages read per turn at most: past it, the older ones are summarised. */
  readonly historyWindow: number;
  /**
   * Tokens (estimated) one model request of a chat turn should hold at most: the stored
   * conversation gets what the instructions, its summary and the message leave of two
   * thirds of it; the rest is for the tools and the turn's own calls.
   */
  readonly contextTokens: number;
  /** One tool call's argument text, in bytes: past it the call is refused. */
  readonly maxToolArgumentBytes: number;
  /** The model's words in one reply, in characters: past it they are cut at a word with a marker. */
  readonly maxReplyChars: number;
}

export const DEFAULT_AGENT_LIMITS: AgentLimits = {
  maxIterations: 5,
  maxToolCalls: 10,
  turnTimeoutMs: 30_000,
  toolTimeoutMs: 10_000,
  historyWindow: 100,
  contextTokens: 8_000,
  maxToolArgumentBytes: 16 * 1024,
  maxReplyChars: REPLY_TARGET_CHARS,
};

/** How the model samples its answers in the chat. */
export interface ModelSampling {
  /** 0 (the default): the most likely words, so the same request gets the same tool calls. */
  readonly temperature: number;
  /** Tokens the model may write in one call. */
  readonly maxTokens: number;
}

export const DEFAULT_SAMPLING: ModelSampling = { temperature: 0, maxTokens: 1024 };

/** The temperatures a chat request may ask for (LLM_TEMPERATURE is within them too). */
export const TEMPERATURE_RANGE = { min: 0, max: 2 } as const;

/** A chat request's own sampling outside the server's bounds; `field` is temperature or maxTokens. */
export class InvalidSamplingError extends DomainValidationError {
  readonly code = 'CHAT.INVALID_SAMPLING';
}

/**
 * The sampling of one chat turn: the server's, with what the request asked for in its place.
 * A temperature within TEMPERATURE_RANGE; a maxTokens from 1 to the server's own (LLM_MAX_TOKENS),
 * so a request can ask for shorter answers, never for longer ones.
 * @throws InvalidSamplingError naming the field out of bounds
 */
export function requestedSampling(
  server: ModelSampling,
  requested: { readonly temperature?: number; readonly maxTokens?: number },
): ModelSampling {
  const { temperature, maxTokens } = requested;
  const { min, max } = TEMPERATURE_RANGE;
  if (temperature !== undefined && !(Number.isFinite(temperature) && temperature >= min && temperature <= max)) {
    throw new InvalidSamplingError('temperature', `temperature must be a number from ${min} to ${max}`);
  }
  if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && maxTokens >= 1 && maxTokens <= server.maxTokens)) {
    throw new InvalidSamplingError('maxTokens', `maxTokens must be a whole number from 1 to ${server.maxTokens}`);
  }
  return { temperature: temperature ?? server.temperature, maxTokens: maxTokens ?? server.maxTokens };
}
