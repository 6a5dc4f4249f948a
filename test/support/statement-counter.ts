import { Client } from 'pg';

/**
 * Counts what reaches the database: every statement goes through node-postgres'
 * Client#query, on a PostgreSQL server and on PGlite (through its pg adapter) alike.
 */
export function countStatements(): { statements: string[]; named: string[]; stop: () => void } {
  const statements: string[] = [];
  /** The texts of those sent as named prepared statements. */
  const named: string[] = [];
  const original = Reflect.get(Client.prototype, 'query') as (this: Client, ...args: unknown[]) => unknown;
  Reflect.set(Client.prototype, 'query', function (this: Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string; name?: string };
    statements.push(typeof config === 'string' ? config : (config.text ?? '?'));
    if (typeof config !== 'string' && config.name) named.push(config.text ?? '?');
    return original.apply(this, args);
  });
  return { statements, named, stop: () => Reflect.set(Client.prototype, 'query', original) };
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
