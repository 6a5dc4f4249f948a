import { AsyncLocalStorage } from 'node:async_hooks';
import type { Pool, PoolClient, QueryConfig, QueryResult } from 'pg';
import sql, { empty, join, raw, type Sql as Statement } from 'sql-template-tag';
import { DataSource, EntityManager, QueryFailedError, type QueryRunner } from 'typeorm';
import type { z } from 'zod';

/**
 * How adapters write SQL: statements are tagged templates (sql-template-tag), so a value is
 * always a numbered parameter ($1, $2…), never spliced text; `raw` is for the code's own
 * constants (column lists), `join` and `empty` compose optional parts. Rows are checked
 * against a zod schema where they enter the code: a query and the type it is read as cannot
 * drift apart unnoticed.
 */
export { empty, join, raw, sql, type Statement };

/** What runs a statement: a DataSource, a transaction's EntityManager, or a connected QueryRunner. */
export type Sql = DataSource | EntityManager | QueryRunner;

/**
 * Distinct statement texts that run as named prepared statements: the server parses and plans
 * each once per connection, not once per call. The first ones this process runs get names (the
 * hot path's come first); past the cap a new text runs unnamed, so a statement whose text
 * varies with its data never fills the server's memory.
 */
const MAX_PREPARED_STATEMENTS = 500;
const preparedNames = new Map<string, string>();

/**
 * DataSources whose statements all go unnamed (DATABASE_PREPARED_STATEMENTS=false): a pooler in
 * transaction mode hands each transaction whichever server connection is free, where a name
 * prepared on another one does not exist. Each call is then parsed and planned again.
 */
const unnamedOnly = new WeakSet<DataSource>();

/** From now on, every statement run on `dataSource` (its transactions included) is sent unnamed, still with parameters. */
export function sendStatementsUnnamed(dataSource: DataSource): void {
  unnamedOnly.add(dataSource);
}

function preparedName(db: Sql, text: string): string | undefined {
  if (unnamedOnly.has(db instanceof DataSource ? db : db.connection)) return undefined;
  let name = preparedNames.get(text);
  if (name === undefined && preparedNames.size < MAX_PREPARED_STATEMENTS) {
    name = `bridle_${preparedNames.size}`;
    preparedNames.set(text, name);
  }
  return name;
}

/** A transaction opened by `inTransaction`, and what waits for its commit. */
interface TransactionScope {
  readonly dataSource: DataSource;
  readonly manager: EntityManager;
  readonly afterCommit: (() => void)[];
}
const scopes = new AsyncLocalStorage<TransactionScope>();

/**
 * Runs `work` in one transaction on `dataSource`: every statement that any adapter runs on
 * that DataSource meanwhile, in this async context, joins it (a unit of work across
 * repositories that never pass a transaction around). Nested calls join the outer one.
 * `work` gets the transaction's EntityManager, for statements of its own.
 */
export async function inTransaction<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  const scope = scopes.getStore();
  if (scope?.dataSource === dataSource) return work(scope.manager);
  const afterCommit: (() => void)[] = [];
  const result = await dataSource.transaction((manager) => scopes.run({ dataSource, manager, afterCommit }, () => work(manager)));
  for (const effect of afterCommit) effect();
  return result;
}

/** Whether this async context runs inside `inTransaction` on `dataSource` (its statements join that transaction). */
export function inUnitOfWork(dataSource: DataSource): boolean {
  return scopes.getStore()?.dataSource === dataSource;
}

/** Runs `effect` once the surrounding `inTransaction` commits (never if it rolls back), or now outside one. */
export function afterCommit(effect: () => void): void {
  const scope = scopes.getStore();
  if (scope) scope.afterCommit.push(effect);
  else effect();
}

/** node-postgres under TypeORM: the pool of a DataSource (or the client of its open unit of work), or the client a transaction holds. */
function connectionOf(db: Sql): Pool | PoolClient {
  if (db instanceof DataSource) {
    const scope = scopes.getStore();
    if (scope?.dataSource === db) return connectionOf(scope.manager);
    return (db.driver as unknown as { master: Pool }).master;
  }
  const runner = db instanceof EntityManager ? db.queryRunner : db;
  if (runner) return (runner as unknown as { databaseConnection: PoolClient }).databaseConnection;
  return ((db as EntityManager).connection.driver as unknown as { master: Pool }).master;
}

/**
 * Runs one statement straight on node-postgres, prepared (see above). Errors come back as
 * TypeORM's QueryFailedError, as from TypeORM's own query(), so callers read them one way.
 */
async function execute(db: Sql, statement: Statement): Promise<QueryResult> {
  const query = { text: statement.text, values: statement.values, name: preparedName(db, statement.text) };
  try {
    const connection = connectionOf(db);
    return await ('release' in connection ? connection.query(query) : onPool(connection, query));
  } catch (error) {
    throw error instanceof Error && 'code' in error ? new QueryFailedError(statement.text, statement.values, error) : error;
  }
}

/**
 * One statement on a pooled client. pg's `pool.query` would throw away the client after any
 * error; an error the database answered (a constraint, a bad value) leaves the connection
 * sound, so it goes back to the pool with its prepared statements. On PGlite, whose pool
 * hands the same connection to every client, a thrown-away client also ended the next one.
 */
async function onPool(pool: Pool, query: QueryConfig): Promise<QueryResult> {
  const client = await pool.connect();
  let broken = false;
  try {
    return await client.query(query);
  } catch (error) {
    broken = !answeredByDatabase(error);
    throw error;
  } finally {
    client.release(broken);
  }
}

/** An ErrorResponse from the server (it has a severity), not a broken connection or a bug. */
function answeredByDatabase(error: unknown): boolean {
  return error instanceof Error && typeof (error as { severity?: unknown }).severity === 'string';
}

/** A row that does not have the shape its adapter reads it as: the query and its schema disagree. */
export class UnexpectedRowError extends Error {
  constructor(statement: Statement, index: number, issues: readonly z.core.$ZodIssue[]) {
    // Columns and rules only, never values: a row may hold personal data or a secret.
    const problems = issues.map((issue) => `${issue.path.join('.') || '(row)'}: ${issue.message}`).join('; ');
    super(`Row ${index} of "${firstLine(statement.text)}" is not as expected: ${problems}`);
    this.name = 'UnexpectedRowError';
  }
}

/** The statement's rows (a SELECT's, or what RETURNING names), each checked against `row`. */
export async function selectRows<S extends z.ZodType>(db: Sql, statement: Statement, row: S): Promise<z.output<S>[]> {
  const { rows } = await execute(db, statement);
  return rows.map((value: unknown, index) => {
    const parsed = row.safeParse(value);
    if (!parsed.success) throw new UnexpectedRowError(statement, index, parsed.error.issues);
    return parsed.data;
  });
}

/** The statement's first row, checked against `row`, or null when it returned none. */
export async function selectRow<S extends z.ZodType>(db: Sql, statement: Statement, row: S): Promise<z.output<S> | null> {
  return (await selectRows(db, statement, row))[0] ?? null;
}

/** Whether the statement returns any row (none of its columns is read). */
export async function exists(db: Sql, statement: Statement): Promise<boolean> {
  const { rows } = await execute(db, statement);
  return rows.length > 0;
}

/** Runs a statement whose result nobody reads. */
export async function run(db: Sql, statement: Statement): Promise<void> {
  await execute(db, statement);
}

/** Runs an UPDATE or DELETE. @returns how many rows it changed. */
export async function changeRows(db: Sql, statement: Statement): Promise<number> {
  const { rowCount } = await execute(db, statement);
  return rowCount ?? 0;
}

function firstLine(text: string): string {
  const line = text.trim().split('\n', 1)[0];
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
