import type { ChildProcess } from 'node:child_process';

/**
 * Undo actions (stop a service, drop a database, stop the private PostgreSQL cluster, remove
 * a temp folder), run newest first, on success, failure and Ctrl-C alike.
 */
const undoStack: { label: string; run: () => Promise<void> }[] = [];
/** Synchronous last resorts for `process.on('exit')`, when the async undo actions could not run. */
const lastResorts = new Set<() => void>();
const children = new Set<ChildProcess>();

/** Registers an undo action; the returned function runs it now (once) and takes it off the stack. */
export function onCleanup(label: string, run: () => Promise<void>): () => Promise<void> {
  const entry = { label, run };
  undoStack.push(entry);
  let done = false;
  return async () => {
    if (done) return;
    done = true;
    const index = undoStack.indexOf(entry);
    if (index >= 0) undoStack.splice(index, 1);
    await run();
  };
}

export async function cleanupAll(): Promise<void> {
  while (undoStack.length > 0) {
    const entry = undoStack.pop();
    if (!entry) break;
    try {
      await entry.run();
    } catch (error) {
      process.stderr.write(`cleanup "${entry.label}" failed: ${String(error)}\n`);
    }
  }
}

/** A synchronous action for the process's exit, in case the undo stack never ran; returns its removal. */
export function onExit(run: () => void): () => void {
  lastResorts.add(run);
  return () => lastResorts.delete(run);
}

/** No child process may outlive the benchmark. */
export function trackChild(child: ChildProcess): void {
  children.add(child);
  child.on('exit', () => children.delete(child));
}

process.on('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const run of lastResorts) {
    try {
      run();
    } catch {
      // the last resort of a last resort: nothing more to do
    }
  }
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: cleaning up\n`);
    void cleanupAll().finally(() => process.exit(130));
  });
}
