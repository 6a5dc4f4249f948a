import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as Pg from 'pg';

/**
 * Preloaded into each outreach worker by bench/outreach-cycles.ts (`node -r <this> dist/worker.js`).
 * Counts what the process sends to PostgreSQL through node-postgres (`Client#query`: every
 * statement, transaction control included; statements that triggers and foreign-key checks
 * run inside the server are not seen) and the cycles it records (the statements that settle
 * a decision_logs row), and writes both to `$OUTREACH_BENCH_COUNTS/<pid>.json` every 500 ms and at exit.
 *
 * With `OUTREACH_BENCH_CAPTURE=<file>`, during its fifth cycle (its connections warm) it runs each statement first
 * as `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)` in a transaction (or a savepoint) that it
 * rolls back, then for real, so each plan is the plan of that statement in that state; at
 * the end of the cycle it writes the statements and their plans there.
 */

interface Captured {
  readonly text: string;
  readonly plan?: unknown;
  readonly error?: string;
}

type Query = (...args: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;

const countsDir = process.env.OUTREACH_BENCH_COUNTS;
const captureFile = process.env.OUTREACH_BENCH_CAPTURE;
const counts = { pid: process.pid, statements: 0, cycles: 0 };
let captured: Captured[] | undefined;
/** The connections in a transaction, where a plan is taken in a savepoint. */
const inTransaction = new WeakSet<object>();
const CONTROL = /^\s*(START TRANSACTION|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET TRANSACTION)\b/i;

// The worker's own node-postgres (it runs from the repository root): the copy TypeORM loads.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const pg = require(require.resolve('pg', { paths: [process.cwd()] })) as typeof Pg;
// eslint-disable-next-line @typescript-eslint/unbound-method -- called with its connection as `this`
const query = pg.Client.prototype.query as unknown as Query;

async function explained(client: object, text: string, values: unknown): Promise<Captured> {
  const nested = inTransaction.has(client);
  await query.call(client, nested ? 'SAVEPOINT bench_explain' : 'BEGIN');
  try {
    const { rows } = await query.call(client, `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values);
    return { text, plan: rows[0]['QUERY PLAN'] };
  } catch (error) {
    return { text, error: error instanceof Error ? error.message : String(error) };
  } finally {
    await query.call(client, nested ? 'ROLLBACK TO SAVEPOINT bench_explain' : 'ROLLBACK');
    if (nested) await query.call(client, 'RELEASE SAVEPOINT bench_explain');
  }
}

pg.Client.prototype.query = function countedQuery(this: object, ...args: unknown[]) {
  // query(text, values) or query({text, values, name}): a prepared statement is explained by its text.
  const [config] = args;
  const text = typeof config === 'string' ? config : ((config as { text?: string } | undefined)?.text ?? '');
  const values = Array.isArray(args[1]) ? args[1] : (config as { values?: unknown[] } | undefined)?.values;
  counts.statements++;
  if (/^\s*(START TRANSACTION|BEGIN)\b/i.test(text)) inTransaction.add(this);
  else if (/^\s*(COMMIT|ROLLBACK)\s*$/i.test(text)) inTransaction.delete(this);
  // A cycle's decision row, settled, ends it: on its own, or inside the statement that settles its action or releases
  // its task. The claim's statement opens it as pending (a plain INSERT); the settling one is an upsert.
  const cycleEnds = /\bINSERT INTO decision_logs\b[^;]*\bON CONFLICT \(id\) DO UPDATE\b/.test(text);
  if (cycleEnds) counts.cycles++;
  if (captured && !CONTROL.test(text)) {
    const list = captured;
    const done = cycleEnds;
    if (done) captured = undefined;
    return (async () => {
      list.push(await explained(this, text, values));
      if (done) writeFileSync(captureFile!, JSON.stringify(list));
      return query.apply(this, args);
    })();
  }
  if (captured) captured.push({ text });
  if (captureFile && cycleEnds && counts.cycles === 4) captured = [];
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

function flush(): void {
  if (countsDir) writeFileSync(join(countsDir, `${process.pid}.json`), JSON.stringify(counts));
}
setInterval(flush, 500).unref();
process.on('exit', flush);
