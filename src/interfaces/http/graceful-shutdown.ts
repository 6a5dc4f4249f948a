import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** What a client of an event stream ended by a shutdown reads: reconnect after a second (to another replica). */
export const GOING_AWAY_EVENT = 'retry: 1000\nevent: shutdown\ndata: {"reason":"server shutting down"}\n\n';

/** Streams that end only when their client leaves and have their own way to end (endOnDrain). */
const ownEnds = new WeakMap<ServerResponse, () => void>();

/**
 * Marks `res` as an event stream that only ends when its client leaves and has its own last
 * word (a 2026 MCP `subscriptions/listen` ends with its JSON-RPC result): a drain ends it at
 * once by calling `end`, where a GET stream is ended with GOING_AWAY_EVENT.
 */
export function endOnDrain(res: ServerResponse, end: () => void): void {
  ownEnds.set(res, end);
}

/**
 * Drains an HTTP server for a bounded shutdown (docs/operations.md#shutdown-and-rolling-restarts). Call `track` right after the server
 * exists and before it listens, then `drain` once on SIGTERM. During the drain:
 *
 * - the listener closes (`server.close()`), so new connections are refused;
 * - idle keep-alive sockets close at once, and every response sent from then on carries
 *   `Connection: close`, so Node closes its socket when it ends;
 * - event streams that only end when the client leaves (GET event streams: MCP's standalone
 *   stream) get a `retry:` hint and a `shutdown` event and are ended at once; those marked with
 *   `endOnDrain` (a 2026 MCP listen) are ended at once their own way; other event streams (a
 *   chat turn) run to their final event;
 * - at `graceMs`, what is still open gets the same hint if it streams events, and every
 *   remaining connection is cut (`closeAllConnections()`).
 *
 * It resolves when the last connection has gone, so that Nest's shutdown hooks then run with
 * no request left in flight.
 */
export class GracefulShutdown {
  private draining = false;
  private readonly streams = new Set<ServerResponse>();

  constructor(private readonly server: Server) {}

  track(): void {
    this.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      if (this.draining) res.shouldKeepAlive = false;
      // A response whose headers went out before the drain kept its socket alive: close it once idle.
      res.once('finish', () => {
        if (this.draining) setImmediate(() => this.server.closeIdleConnections());
      });
      const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
      res.writeHead = (...args: unknown[]) => {
        if (this.draining) res.setHeader('Connection', 'close');
        const result = writeHead(...args);
        if (isEventStream(res, args)) {
          this.streams.add(res);
          res.once('close', () => this.streams.delete(res));
          if (this.draining && endsOnlyWhenLeft(res)) this.endStream(res);
        }
        return result;
      };
    });
  }

  async drain(graceMs: number): Promise<void> {
    this.draining = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    for (const res of this.streams) {
      if (endsOnlyWhenLeft(res)) this.endStream(res);
    }
    const deadline = setTimeout(() => {
      for (const res of this.streams) this.endStream(res);
      this.server.closeAllConnections();
    }, graceMs);
    try {
      await closed;
    } finally {
      clearTimeout(deadline);
    }
  }

  private endStream(res: ServerResponse): void {
    this.streams.delete(res);
    if (res.writableEnded || res.destroyed) return;
    const end = ownEnds.get(res);
    if (end) end();
    else res.end(GOING_AWAY_EVENT);
  }
}

function endsOnlyWhenLeft(res: ServerResponse): boolean {
  return res.req.method === 'GET' || ownEnds.has(res);
}

/** Headers given to `writeHead` itself (as the MCP SDK gives them) are not visible through `getHeader`. */
function isEventStream(res: ServerResponse, writeHeadArgs: unknown[]): boolean {
  const given = writeHeadArgs.find((arg): arg is Record<string, unknown> => typeof arg === 'object' && arg !== null && !Array.isArray(arg));
  const type = Object.entries(given ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? res.getHeader('Content-Type');
  return typeof type === 'string' && type.startsWith('text/event-stream');
}
