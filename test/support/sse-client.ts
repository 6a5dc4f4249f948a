import type { SseEvent } from './chat-stream';
import { within } from './fake-provider-server';

/** Bound of every wait: generous for a loaded machine; a wait that would hang fails with a message instead. */
export const BOUND_MS = 10_000;

/** A real HTTP client (Node's fetch) reading the event stream piece by piece, as it arrives. */
export class SseClient {
  readonly events: SseEvent[] = [];
  /** Settles when the server ended the stream, or the client aborted it. */
  readonly finished: Promise<void>;
  private readonly controller = new AbortController();
  private readonly listeners = new Set<() => void>();
  private ended = false;

  constructor(url: string, token: string, body: object) {
    this.finished = this.read(url, token, body).finally(() => {
      this.ended = true;
      this.notify();
    });
    // Reported by waitFor and end(); never an unhandled rejection.
    this.finished.catch(() => undefined);
  }

  get names(): string[] {
    return this.events.map((event) => event.event);
  }

  get deltas(): string[] {
    return this.events.filter((event) => event.event === 'delta').map((event) => event.data.text as string);
  }

  /**
   * The first event matching `match`, which is called on each event in order as soon as it is
   * read (so it may record what the provider had sent at that moment).
   */
  waitFor(what: string, match: (event: SseEvent) => boolean): Promise<SseEvent> {
    let seen = 0;
    return within(
      BOUND_MS,
      `${what} did not reach the HTTP client within ${BOUND_MS} ms`,
      new Promise<SseEvent>((resolve, reject) => {
        const check = () => {
          for (; seen < this.events.length; seen++) {
            if (match(this.events[seen])) {
              this.listeners.delete(check);
              resolve(this.events[seen]);
              return;
            }
          }
          if (this.ended) {
            this.listeners.delete(check);
            reject(new Error(`the stream ended without ${what}; events: ${this.names.join(', ')}`));
          }
        };
        this.listeners.add(check);
        check();
      }),
    );
  }

  /** The whole stream, once the server ended it. */
  async end(): Promise<SseEvent[]> {
    await within(BOUND_MS, `the event stream did not end within ${BOUND_MS} ms; events: ${this.names.join(', ')}`, this.finished);
    return this.events;
  }

  /** Leaves mid-stream, as a closed browser tab does. */
  async abort(): Promise<void> {
    this.controller.abort();
    await this.finished.catch(() => undefined);
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  private async read(url: string, token: string, body: object): Promise<void> {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify(body),
        signal: this.controller.signal,
      });
      if (res.status !== 200 || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
        throw new Error(`POST ${url} answered ${res.status} ${res.headers.get('content-type')}: ${await res.text()}`);
      }
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          this.parse(block);
        }
      }
    } catch (error) {
      if (!this.controller.signal.aborted) throw error;
    }
  }

  private parse(block: string): void {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length === 0) return;
    this.events.push({ event, data: JSON.parse(data.join('\n')) as Record<string, unknown> });
    this.notify();
  }
}
