import { LanguageModelTimeoutError } from '../../domain/agent/language-model-errors';

export interface RetryPolicy {
  /** Budget of one attempt. */
  readonly timeoutMs: number;
  /** Retries after the first attempt (0–2). */
  readonly maxRetries: number;
  /** A provider's retry-after longer than this is not waited for: the failure is reported at once. */
  readonly retryMaxWaitMs: number;
}

/** What the adapter makes of a failed attempt. */
export interface Classified {
  readonly error: Error;
  /** A rate limit or a provider outage; never a refusal of our own request. */
  readonly retryable: boolean;
}

/**
 * Runs `attempt` with a per-attempt timeout, retrying what `classify` calls retryable at
 * most `maxRetries` times, after the provider's retry-after or an exponential backoff.
 * Every wait ends when the turn's `signal` aborts, so retries never outlive its deadline.
 */
export async function withRetries<T>(
  policy: RetryPolicy,
  signal: AbortSignal,
  attempt: (signal: AbortSignal) => Promise<T>,
  classify: (error: unknown, how: { timedOut: boolean; turnEnded: boolean }) => Classified,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    const perAttempt = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      perAttempt.abort();
    }, policy.timeoutMs);
    const forward = () => perAttempt.abort();
    signal.addEventListener('abort', forward, { once: true });
    try {
      return await attempt(perAttempt.signal);
    } catch (raw) {
      const { error, retryable } = classify(raw, { timedOut, turnEnded: signal.aborted });
      if (!retryable || retry >= policy.maxRetries || signal.aborted) throw error;
      const asked = retryAfterOf(raw);
      if (asked !== undefined && asked > policy.retryMaxWaitMs) throw error;
      await sleep(asked ?? 250 * 2 ** retry, signal);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', forward);
    }
  }
}

/**
 * withRetries for an answer that streams: `attempt` hands every piece of text it reads to
 * `emit`, which passes it on to `onText` (never an empty one). A failure before the first
 * piece went out is retried as usual; after it, it is final, still classified: a piece the
 * person has read cannot be taken back. The per-attempt timeout bounds the whole attempt,
 * the stream included, as it bounds a whole unstreamed answer: an answer that fits the
 * budget one way fits it the other.
 */
export function withStreamRetries<T>(
  policy: RetryPolicy,
  signal: AbortSignal,
  attempt: (signal: AbortSignal, emit: (text: string) => void) => Promise<T>,
  classify: (error: unknown, how: { timedOut: boolean; turnEnded: boolean }) => Classified,
  onText: (text: string) => void,
): Promise<T> {
  let sent = false;
  const emit = (text: string) => {
    if (!text) return;
    // Spaces alone show the person nothing (a reply never starts with them): still retryable.
    if (/\S/.test(text)) sent = true;
    onText(text);
  };
  return withRetries(
    policy,
    signal,
    (attemptSignal) => attempt(attemptSignal, emit),
    (error, how) => {
      const classified = classify(error, how);
      return sent ? { error: classified.error, retryable: false } : classified;
    },
  );
}

/** retry-after-ms or retry-after (seconds or an HTTP date), from an SDK error's response headers. */
export function retryAfterOf(error: unknown): number | undefined {
  const headers = (error as { headers?: { get?: (name: string) => string | null } } | null)?.headers;
  if (typeof headers?.get !== 'function') return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = headers.get('retry-after');
  if (after === null) return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new LanguageModelTimeoutError('The turn ended while waiting to retry'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
