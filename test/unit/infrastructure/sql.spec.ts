import { z } from 'zod';
import {
  changeRows,
  empty,
  join,
  raw,
  selectRow,
  selectRows,
  sql,
  type Sql,
  UnexpectedRowError,
} from '../../../src/infrastructure/persistence/sql';

/** Answers every statement with `rows`, and remembers what it was asked. */
function database(rows: unknown): Sql & { asked: { text: string; values?: unknown[] }[] } {
  const asked: { text: string; values?: unknown[] }[] = [];
  return {
    asked,
    query: <T>(text: string, values?: unknown[]) => {
      asked.push({ text, values });
      return Promise.resolve(rows as T);
    },
  };
}

describe('sql', () => {
  it('numbers values in order, through nested fragments, and splices only raw text', () => {
    const owner = "o'brien";
    const done = sql`AND completed = ${true}`;
    const statement = sql`SELECT ${raw('id, title')} FROM tasks WHERE user_id = ${owner} ${done} AND number IN (${join([1, 2])}) ${empty}LIMIT ${10}`;
    expect(statement.text).toBe('SELECT id, title FROM tasks WHERE user_id = $1 AND completed = $2 AND number IN ($3,$4) LIMIT $5');
    expect(statement.values).toEqual([owner, true, 1, 2, 10]);
  });
});

describe(selectRows.name, () => {
  const ROW = z.object({ id: z.string(), number: z.number().int(), createdAt: z.date() });

  it('sends the statement as text and parameters, and returns the rows as their schema reads them', async () => {
    const at = new Date('2026-11-23T00:00:00Z');
    const db = database([{ id: 'a', number: 1, createdAt: at, extra: 'dropped' }]);
    await expect(selectRows(db, sql`SELECT * FROM tasks WHERE number = ${1}`, ROW)).resolves.toEqual([
      { id: 'a', number: 1, createdAt: at },
    ]);
    expect(db.asked).toEqual([{ text: 'SELECT * FROM tasks WHERE number = $1', values: [1] }]);
  });

  it('refuses a row of another shape, naming the column and the statement but no value', async () => {
    const db = database([{ id: 'a', number: '7', createdAt: new Date() }]);
    const read = selectRows(db, sql`SELECT id, number, created_at FROM tasks WHERE title = ${'secret title'}`, ROW);
    await expect(read).rejects.toThrow(UnexpectedRowError);
    await expect(read).rejects.toThrow(
      /^Row 0 of "SELECT id, number, created_at FROM tasks WHERE title = \$1" is not as expected: number: /,
    );
    await expect(read).rejects.not.toThrow(/secret|'7'/);
  });

  it('reads the rows an UPDATE … RETURNING gives back, which TypeORM answers as [rows, count]', async () => {
    const at = new Date();
    await expect(selectRows(database([[{ id: 'a', number: 1, createdAt: at }], 1]), sql`UPDATE …`, ROW)).resolves.toEqual([
      { id: 'a', number: 1, createdAt: at },
    ]);
  });

  it('reads one row or none', async () => {
    await expect(selectRow(database([]), sql`SELECT 1`, ROW)).resolves.toBeNull();
  });
});

describe(changeRows.name, () => {
  it('answers how many rows an UPDATE or DELETE changed', async () => {
    await expect(changeRows(database([[], 3]), sql`DELETE FROM tasks WHERE id = ${'x'}`)).resolves.toBe(3);
  });
});
