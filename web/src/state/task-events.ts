import { type Session, streamTaskEvents } from '../api';
import { handledAuthFailure } from './session';
import { refreshTasks, tasks } from './tasks';

/** A burst of changes (a bulk delete, a chat turn's several tools) is one re-read. */
const SETTLE_MS = 200;
/** The longest wait between two attempts after consecutive failures. */
const BACKOFF_MAX_MS = 30_000;

/**
 * The live channel: while a person is signed in, the console holds
 * `GET /api/:userId/tasks/events` open and re-reads the task list shortly after each change,
 * made anywhere (another tab, the chat, an MCP client, a script). It reconnects after the
 * stream ends or drops, at the delay the server hinted, doubling it on each failure in a row
 * and re-reading on reconnecting (changes meanwhile are not replayed). A stream superseded
 * because the person has too many open waits until its tab is shown again. A 401 signs out.
 * Returns the function that stops it (sign-out).
 */
export function listenForTaskChanges(session: Session): () => void {
  const stop = new AbortController();
  let settle: ReturnType<typeof setTimeout> | undefined;
  const changed = () => {
    clearTimeout(settle);
    // Only a list someone has loaded (the chat page) needs to stay fresh; the page reads it when opened.
    settle = setTimeout(() => tasks.value !== null && void refreshTasks(session), SETTLE_MS);
  };

  void (async () => {
    let hintedMs = 2_000;
    let failures = 0;
    let opened = 0;
    while (!stop.signal.aborted) {
      let superseded = false;
      try {
        await streamTaskEvents(
          session,
          {
            onOpen: () => {
              failures = 0;
              if (opened++ > 0) changed();
            },
            onEvent: (event) => {
              if (event === 'tasks-changed') changed();
              else if (event === 'superseded') superseded = true;
            },
            onRetry: (ms) => (hintedMs = ms),
          },
          stop.signal,
        );
      } catch (error) {
        if (stop.signal.aborted || handledAuthFailure(error)) return;
        failures += 1;
      }
      const delayMs = Math.min(BACKOFF_MAX_MS, hintedMs * 2 ** failures) * (1 + Math.random() / 2);
      await pause(superseded ? Infinity : delayMs, stop.signal);
    }
  })();

  return () => {
    clearTimeout(settle);
    stop.abort();
  };
}

/** Waits `ms`, cut short when the tab is shown again (the person is looking now) or when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const onVisible = () => {
      if (document.visibilityState === 'visible') done();
    };
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    document.addEventListener('visibilitychange', onVisible);
    signal.addEventListener('abort', done);
  });
}
