import { setFlagsFromString } from 'node:v8';

/**
 * `npm start` runs the embedded default with `--optimize-for-size` (package.json
 * `config.startNodeFlags`), which keeps V8's heap small for good. During a start that heap only
 * grows (the bundle's code, Nest's graph, PGlite), and the flag's memory reducer spent 0.2 to
 * 0.3 s of every start in mark-compacts that found next to nothing to free (docs/operations.md,
 * "Cold start"). Imported first by `src/main.ts`, this module turns the flag off while the
 * process starts; `optimizeForSizeOnceStarted` turns it back on once the server listens. The
 * young generation stays the size the flag gave it at launch: V8 fixes it when the process starts.
 */
const requested = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some(
  (flag) => flag === '--optimize-for-size' || flag === '--optimize_for_size',
);
if (requested) setFlagsFromString('--no-optimize-for-size');

/** Gives `--optimize-for-size` back, where the process was started with it. */
export function optimizeForSizeOnceStarted(): void {
  if (requested) setFlagsFromString('--optimize-for-size');
}
