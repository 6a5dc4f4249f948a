import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** A client of `GET /api/:userId/tasks/events`, reading the stream as it arrives. */
export interface TaskEventStream {
  readonly status: number;
  readonly headers: Headers;
  /** The body of a refusal (401, 403…); null for an open stream. */
  readonly refusal: unknown;
  /** Every event so far, in order. */
  readonly events: readonly EventSourceMessage[];
  readonly comments: readonly string[];
  /** The last `retry:` hint, in ms. */
  readonly retry: number | null;
  /** Whether the server has ended the stream. */
  readonly ended: boolean;
  /** Resolves once `condition` holds, polling; rejects after `timeoutMs` saying what it waited for. */
  until(what: string, condition: (stream: TaskEventStream) => boolean, timeoutMs?: number): Promise<void>;
  /** The client leaves. */
  close(): void;
}

/**
 * Opens the stream and resolves once its headers arrived: the server subscribes before it
 * sends them, so from then on every change reaches this stream.
 */
export async function openTaskEvents(http: string, path: string, headers: Record<string, string> = {}): Promise<TaskEventStream> {
  const controller = new AbortController();
  const res = await fetch(`${http}${path}`, { headers, signal: controller.signal });
  const events: EventSourceMessage[] = [];
  const comments: string[] = [];
  let retry: number | null = null;
  let ended = false;
  let refusal: unknown = null;

  if (res.ok) {
    const parser = createParser({
      onEvent: (event) => events.push(event),
      onComment: (comment) => comments.push(comment),
      onRetry: (ms) => (retry = ms),
    });
    void (async () => {
      try {
        for await (const chunk of res.body!.pipeThrough(new TextDecoderStream())) parser.feed(chunk);
      } catch {
        // Aborted by close(), or the connection was cut: ended either way.
      }
      ended = true;
    })();
  } else {
    refusal = await res.json();
    ended = true;
  }

  const stream: TaskEventStream = {
    status: res.status,
    headers: res.headers,
    refusal,
    events,
    comments,
    get retry() {
      return retry;
    },
    get ended() {
      return ended;
    },
    async until(what, condition, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!condition(stream)) {
        if (Date.now() > deadline) {
          throw new Error(`timed out waiting for ${what}; events so far: ${JSON.stringify(events)}, ended: ${ended}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () => controller.abort(),
  };
  return stream;
}
