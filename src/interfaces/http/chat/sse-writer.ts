import type { Response } from 'express';

/**
 * Server-Sent Events on an Express response. Headers go out with the first event, so a
 * failure before it is still an ordinary HTTP error. Once the client has gone, writes are
 * dropped: the turn itself goes on and is stored as if nobody had left.
 */
export class SseWriter {
  private opened = false;

  constructor(private readonly res: Response) {}

  get started(): boolean {
    return this.opened;
  }

  send(event: string, data: unknown): void {
    if (this.res.writableEnded || this.res.destroyed) return;
    if (!this.opened) {
      this.res.status(200);
      this.res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
      this.res.setHeader('Cache-Control', 'no-cache, no-transform');
      this.res.setHeader('X-Accel-Buffering', 'no');
      this.res.flushHeaders();
      this.opened = true;
    }
    this.res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  end(): void {
    if (!this.res.writableEnded && !this.res.destroyed) this.res.end();
  }
}
