import type { ServerResponse } from 'node:http';
import type { TaskChanges } from '../../../application/todo/ports/task-changes.port';
import { GOING_AWAY_EVENT } from '../graceful-shutdown';

export interface TaskEventStreamSettings {
  /** Streams one person may hold open on this replica; the one after it closes their oldest. */
  readonly perPerson: number;
  /** A quiet stream gets a comment line this often, so a proxy's idle timeout does not close it. */
  readonly keepAliveMs: number;
  /**
   * A stream ends after about this long, and the client opens a new one: the bearer token is
   * checked again then, so a revoked or expired token stops receiving events within this time.
   */
  readonly lifetimeMs: number;
  /** The reconnect delay hinted to the client (`retry:`). */
  readonly retryMs: number;
}

export const TASK_EVENT_STREAMS: TaskEventStreamSettings = {
  perPerson: 5,
  keepAliveMs: 20_000,
  lifetimeMs: 15 * 60_000,
  retryMs: 2_000,
};

/** Sent to the oldest stream when the person opens one more than `perPerson`; it is then ended. */
export const SUPERSEDED_EVENT = 'superseded';
export const TASKS_CHANGED_EVENT = 'tasks-changed';

interface OpenStream {
  /** Unsubscribes, stops the timers and ends the response, with `lastWords` if given. */
  end(lastWords?: string): void;
}

/**
 * `GET /api/:userId/tasks/events`: one Server-Sent Events stream per request, on which every
 * change to the person's tasks (TaskChanges) is a `tasks-changed` event with no task content;
 * the client re-reads the list. What is delivered comes from TaskChanges alone; this class
 * keeps only the bookkeeping of this replica's own sockets (the per-person bound, timers).
 */
export class TaskEventStreams {
  /** Per person, oldest first (a Set keeps insertion order). */
  private readonly byPerson = new Map<string, Set<OpenStream>>();

  constructor(
    private readonly changes: TaskChanges,
    private readonly settings: TaskEventStreamSettings = TASK_EVENT_STREAMS,
  ) {}

  /**
   * Subscribes before the headers go out, so a client that has read them misses no change made
   * after. The stream ends when the client leaves, at its lifetime, when it is superseded, or
   * at `endAll`.
   */
  open(userId: string, res: ServerResponse): void {
    // Gone while the guards ran: its 'close' has been and will not come again.
    if (res.destroyed || res.writableEnded) return;
    const write = (chunk: string) => {
      // A change event already queued for a client that does not read says the same: drop this one.
      if (!res.writableEnded && !res.destroyed && !res.writableNeedDrain) res.write(chunk);
    };
    const unsubscribe = this.changes.subscribe(userId, () => write(`event: ${TASKS_CHANGED_EVENT}\ndata: {}\n\n`));

    const mine = this.byPerson.get(userId) ?? new Set<OpenStream>();
    while (mine.size >= this.settings.perPerson) {
      const [oldest] = mine;
      oldest.end(`event: ${SUPERSEDED_EVENT}\ndata: ${JSON.stringify({ limit: this.settings.perPerson })}\n\n`);
    }
    this.byPerson.set(userId, mine);
    const keepAlive = setInterval(() => write(': keep-alive\n\n'), this.settings.keepAliveMs).unref();
    // Spread over the last tenth, so that streams opened together (after a deploy) do not all reconnect at once.
    const lifetime = setTimeout(() => stream.end(), this.settings.lifetimeMs * (0.9 + Math.random() * 0.1)).unref();
    const stream: OpenStream = {
      end: (lastWords) => {
        cleanUp();
        if (!res.writableEnded && !res.destroyed) res.end(lastWords);
      },
    };
    let cleanedUp = false;
    const cleanUp = () => {
      if (cleanedUp) return;
      cleanedUp = true;
      unsubscribe();
      clearInterval(keepAlive);
      clearTimeout(lifetime);
      mine.delete(stream);
      if (mine.size === 0 && this.byPerson.get(userId) === mine) this.byPerson.delete(userId);
    };
    mine.add(stream);
    res.once('close', cleanUp);

    res.statusCode = 200;
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.write(`retry: ${this.settings.retryMs}\n\n`);
  }

  /** Ends every stream with the shutdown event: the clients reconnect, to another replica. */
  endAll(): void {
    for (const streams of [...this.byPerson.values()]) {
      for (const stream of [...streams]) stream.end(GOING_AWAY_EVENT);
    }
  }
}
