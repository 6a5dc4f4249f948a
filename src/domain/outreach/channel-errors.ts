/**
 * What a channel adapter (sandbox, MCP, SMTP) throws. `performed` says whether the
 * action may have taken effect: a failure after which it may have is never retried.
 */
export const CHANNEL_ERROR_CODES = ['SESSION_EXPIRED', 'RATE_LIMITED', 'TARGET_NOT_FOUND', 'REJECTED', 'UNAVAILABLE', 'TIMEOUT'] as const;
export type ChannelErrorCode = (typeof CHANNEL_ERROR_CODES)[number];

export class ChannelError extends Error {
  constructor(
    readonly code: ChannelErrorCode,
    message: string,
    readonly performed: 'no' | 'maybe',
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ChannelError';
  }

  /** Worth another attempt later (after a cooldown or a fresh session). */
  get retryable(): boolean {
    return this.code !== 'TARGET_NOT_FOUND' && this.code !== 'REJECTED';
  }
}
