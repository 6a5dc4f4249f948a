import sql, { empty, join, raw, type Sql as Statement } from 'sql-template-tag';
import type { z } from 'zod';

/**
 * How adapters write SQL: statements are tagged templates (sql-template-tag), so a value is
 * always a numbered parameter ($1, $2…), never spliced text; `raw` is for the code's own
 * constants (column lists), `join` and `empty` compose optional parts. Rows are checked
 * against a zod schema where they enter the code: a query and the type it is read as cannot
 * drift apart unnoticed.
 */
export { empty, join, raw, sql, type Statement };

/** What runs a statement: a DataSource, or a transaction's EntityManager. */
export type Sql = { query<T = unknown>(text: string, parameters?: unknown[]): Promise<T> };

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
  const result = await db.query<unknown[]>(statement.text, statement.values);
  // TypeORM answers an UPDATE or DELETE as [rows, count], whatever it RETURNs; rows are never arrays.
  const rows = Array.isArray(result[0]) && typeof result[1] === 'number' ? (result[0] as unknown[]) : result;
  return rows.map((value, index) => {
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
  const result = await db.query<unknown[]>(statement.text, statement.values);
  return result.length > 0;
}

/** Runs a statement whose result nobody reads. */
export async function run(db: Sql, statement: Statement): Promise<void> {
  await db.query(statement.text, statement.values);
}

/** Runs an UPDATE or DELETE. @returns how many rows it changed. */
export async function changeRows(db: Sql, statement: Statement): Promise<number> {
  const [, changed] = await db.query<[unknown[], number]>(statement.text, statement.values);
  return changed;
}

function firstLine(text: string): string {
  const line = text.trim().split('\n', 1)[0];
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
