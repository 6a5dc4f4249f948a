import { AsyncLocalStorage } from 'node:async_hooks';
import type { Server } from 'node:http';
import { Client } from 'pg';

export interface StatementCounter {
  readonly statements: string[];
  /** The texts of those sent as named prepared statements. */
  readonly named: string[];
  stop(): void;
}

/**
 * Counts what reaches the database: every statement goes through node-postgres'
 * Client#query, on a PostgreSQL server and on PGlite (through its pg adapter) alike.
 * `requestsTo`: only the statements sent while serving a request to that server, and what the
 * request set going; the background jobs' (sweeps, polls, the sealer, each on its own timer) are
 * no request's, and would otherwise land in a count now and then, as a slow machine spreads them.
 */
export function countStatements(options: { requestsTo?: Server } = {}): StatementCounter {
  const statements: string[] = [];
  const named: string[] = [];
  const serving = new AsyncLocalStorage<true>();
  // The first listener of each request: the rest of its handling, and all it awaits, runs inside.
  const enter = () => serving.enterWith(true);
  options.requestsTo?.prependListener('request', enter);
  const counts = () => options.requestsTo === undefined || serving.getStore() === true;
  const original = Reflect.get(Client.prototype, 'query') as (this: Client, ...args: unknown[]) => unknown;
  Reflect.set(Client.prototype, 'query', function (this: Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string; name?: string };
    if (counts()) {
      statements.push(typeof config === 'string' ? config : (config.text ?? '?'));
      if (typeof config !== 'string' && config.name) named.push(config.text ?? '?');
    }
    return original.apply(this, args);
  });
  return {
    statements,
    named,
    stop: () => {
      Reflect.set(Client.prototype, 'query', original);
      options.requestsTo?.off('request', enter);
    },
  };
}

/** Transactions: each statement outside BEGIN … COMMIT is one, and each BEGIN … COMMIT is one. */
export function commitsOf(statements: readonly string[]): number {
  let commits = 0;
  let open = false;
  for (const statement of statements) {
    if (/^(BEGIN|START TRANSACTION)/i.test(statement)) open = true;
    else if (/^COMMIT/i.test(statement)) {
      open = false;
      commits += 1;
    } else if (!open) commits += 1;
  }
  return commits;
}

/** Settings that run the background jobs as often as they may: a request's count must hold while they run. */
export const BUSY_BACKGROUND: Record<string, string> = {
  AUDIT_SEAL_INTERVAL_MS: '10',
  CHAT_SWEEP_INTERVAL_MS: '100',
  OUTREACH_SWEEP_INTERVAL_MS: '100',
  WEBHOOK_POLL_MS: '50',
};
