import { empty, join, raw, sql } from '../../../src/infrastructure/persistence/sql';

// Running statements (prepared, rows read through their schema) is in test/persistence/sql.spec.ts, on a real database.

describe('sql', () => {
  it('numbers values in order, through nested fragments, and splices only raw text', () => {
    const owner = "o'brien";
    const done = sql`AND completed = ${true}`;
    const statement = sql`SELECT ${raw('id, title')} FROM tasks WHERE user_id = ${owner} ${done} AND number IN (${join([1, 2])}) ${empty}LIMIT ${10}`;
    expect(statement.text).toBe('SELECT id, title FROM tasks WHERE user_id = $1 AND completed = $2 AND number IN ($3,$4) LIMIT $5');
    expect(statement.values).toEqual([owner, true, 1, 2, 10]);
  });
});
