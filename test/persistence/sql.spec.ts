import { Client, type QueryConfig } from 'pg';
import { QueryFailedError } from 'typeorm';
import { z } from 'zod';
import {
  afterCommit,
  changeRows,
  inTransaction,
  run,
  selectRow,
  selectRows,
  sql,
  UnexpectedRowError,
} from '../../src/infrastructure/persistence/sql';
import { usingPostgresServer } from '../support/test-database';
import { useOpenDatabase } from '../support/persistence';

/** How every adapter runs SQL: on node-postgres, prepared, rows read through their schema. */
describe(`running statements on ${usingPostgresServer ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();
  const ROW = z.object({ n: z.number().int(), label: z.string(), at: z.date() });

  beforeAll(async () => {
    await db.database.query(`CREATE TABLE sql_spec (n int PRIMARY KEY, label text NOT NULL, at timestamptz NOT NULL)`);
  });

  it('sends values as parameters and reads rows as their schema says', async () => {
    const at = new Date('2026-11-25T10:00:00.123Z');
    const label = "o'brien; DROP TABLE sql_spec";
    await run(db.database, sql`INSERT INTO sql_spec (n, label, at) VALUES (${1}, ${label}, ${at}), (${2}, ${'two'}, ${at})`);
    await expect(selectRows(db.database, sql`SELECT n, label, at, 'dropped' AS extra FROM sql_spec ORDER BY n`, ROW)).resolves.toEqual([
      { n: 1, label, at },
      { n: 2, label: 'two', at },
    ]);
    await expect(selectRow(db.database, sql`SELECT n, label, at FROM sql_spec WHERE n = ${99}`, ROW)).resolves.toBeNull();
  });

  it('reads what an UPDATE returns, and counts what an UPDATE or DELETE changed', async () => {
    const updated = await selectRows(db.database, sql`UPDATE sql_spec SET label = label || '!' RETURNING n, label, at`, ROW);
    expect(updated.map((row) => row.n).sort()).toEqual([1, 2]);
    await expect(changeRows(db.database, sql`UPDATE sql_spec SET label = ${'x'} WHERE n > ${1}`)).resolves.toBe(1);
    await expect(changeRows(db.database, sql`DELETE FROM sql_spec WHERE n = ${42}`)).resolves.toBe(0);
  });

  it('refuses a row of another shape, naming the column and the statement but no value', async () => {
    const read = selectRows(
      db.database,
      sql`SELECT n, label::int AS label, at FROM (SELECT 7 AS n, '7' AS label, now() AS at) r WHERE n = ${7}`,
      ROW,
    );
    await expect(read).rejects.toThrow(UnexpectedRowError);
    await expect(read).rejects.toThrow(/^Row 0 of "SELECT n, label::int AS label, at FROM .*" is not as expected: label: /);
  });

  it('prepares each statement once per connection, in and out of transactions', async () => {
    const statement = sql`SELECT n, label, at FROM sql_spec WHERE n = ${1} /* prepared once */`;
    const prepared = await db.database.transaction(async (manager) => {
      await selectRow(manager, statement, ROW);
      await selectRow(manager, statement, ROW);
      return selectRows(
        manager,
        sql`SELECT name FROM pg_prepared_statements WHERE statement LIKE ${'%prepared once%'} AND name LIKE ${'bridle_%'}`,
        z.object({ name: z.string() }),
      );
    });
    expect(prepared).toHaveLength(1);
  });

  it('joins every statement on the DataSource to an open unit of work: all of it commits, or none', async () => {
    const labels = () =>
      selectRows(db.database, sql`SELECT label FROM sql_spec WHERE n >= ${10} ORDER BY n`, z.object({ label: z.string() }));
    const announced: string[] = [];
    await expect(
      inTransaction(db.database, async () => {
        await run(db.database, sql`INSERT INTO sql_spec (n, label, at) VALUES (${10}, ${'first'}, now())`);
        afterCommit(() => announced.push('first'));
        // A nested unit of work joins the outer one.
        await inTransaction(db.database, () =>
          run(db.database, sql`INSERT INTO sql_spec (n, label, at) VALUES (${11}, ${'second'}, now())`),
        );
        throw new Error('the second write of the unit failed');
      }),
    ).rejects.toThrow('the second write of the unit failed');
    expect(await labels()).toEqual([]);
    expect(announced).toEqual([]);

    await inTransaction(db.database, async () => {
      await run(db.database, sql`INSERT INTO sql_spec (n, label, at) VALUES (${10}, ${'first'}, now())`);
      afterCommit(() => announced.push('after commit'));
      announced.push('inside');
    });
    expect(announced).toEqual(['inside', 'after commit']);
    expect(await labels()).toEqual([{ label: 'first' }]);
    // Outside a unit of work an effect runs at once.
    afterCommit(() => announced.push('now'));
    expect(announced).toEqual(['inside', 'after commit', 'now']);
  });

  it("reports a failed statement as TypeORM does, with the server's code and constraint", async () => {
    const duplicate = run(db.database, sql`INSERT INTO sql_spec (n, label, at) VALUES (${1}, ${'again'}, now())`);
    await expect(duplicate).rejects.toThrow(QueryFailedError);
    await expect(duplicate).rejects.toMatchObject({ driverError: { code: '23505', constraint: 'sql_spec_pkey' } });
  });

  it('keeps the connection after an error the database answered: the next statement runs on it', async () => {
    const pid = z.object({ pid: z.number().int() });
    const before = await selectRow(db.database, sql`SELECT pg_backend_pid() AS pid`, pid);
    for (const failing of [sql`SELECT 1 / ${0}::int AS n`, sql`SELECT ${'not-a-uuid'}::uuid AS n`]) {
      await expect(run(db.database, failing)).rejects.toThrow(QueryFailedError);
      // At once, as a retry would be (on PGlite, a discarded client's end used to reach the next one).
      await expect(selectRow(db.database, sql`SELECT pg_backend_pid() AS pid`, pid)).resolves.toEqual(before);
    }
  });
});

/**
 * DATABASE_PREPARED_STATEMENTS=false, for a pooler in transaction mode: no statement reaches
 * the server with a name (so none is kept on a connection the next transaction may not get),
 * and each still carries its values as parameters.
 */
describe(`running statements unnamed on ${usingPostgresServer ? 'PostgreSQL' : 'PGlite'}`, () => {
  const sent: { text: string; name: string | undefined; values: number }[] = [];
  let stop: () => void;

  beforeAll(() => {
    // Every query config node-postgres is given, from the first migration on.
    const original = Reflect.get(Client.prototype, 'query') as (this: Client, ...args: unknown[]) => unknown;
    Reflect.set(Client.prototype, 'query', function (this: Client, ...args: unknown[]) {
      const config = args[0] as string | QueryConfig;
      if (typeof config === 'string') sent.push({ text: config, name: undefined, values: Array.isArray(args[1]) ? args[1].length : 0 });
      else sent.push({ text: config.text, name: config.name, values: config.values?.length ?? 0 });
      return original.apply(this, args);
    });
    stop = () => Reflect.set(Client.prototype, 'query', original);
  });
  // Fresh: the migrations, and the migration lock on a server, run unnamed too.
  const db = useOpenDatabase({ fresh: true, preparedStatements: false, beforeClose: () => stop?.() });

  it('sends no named statement, in or out of a transaction, and still sends values as parameters', async () => {
    const label = z.object({ label: z.string() });
    await run(db.database, sql`CREATE TABLE unnamed_spec (n int PRIMARY KEY, label text NOT NULL)`);
    await run(db.database, sql`INSERT INTO unnamed_spec (n, label) VALUES (${1}, ${"o'brien"})`);
    const inside = await inTransaction(db.database, async (manager) => {
      await selectRow(manager, sql`SELECT label FROM unnamed_spec WHERE n = ${1} /* unnamed */`, label);
      const again = await selectRow(manager, sql`SELECT label FROM unnamed_spec WHERE n = ${1} /* unnamed */`, label);
      // On the same connection: nothing was kept on it under a name.
      const kept = await selectRows(
        manager,
        sql`SELECT name FROM pg_prepared_statements WHERE name LIKE ${'bridle_%'} OR statement LIKE ${'%unnamed */%'}`,
        z.object({ name: z.string() }),
      );
      return { again, kept };
    });
    expect(inside).toEqual({ again: { label: "o'brien" }, kept: [] });

    expect(sent.filter((statement) => statement.text.includes('/* unnamed */'))).toEqual([
      { text: expect.any(String) as string, name: undefined, values: 1 },
      { text: expect.any(String) as string, name: undefined, values: 1 },
    ]);
    expect(sent.filter((statement) => /INSERT INTO "migrations"/i.test(statement.text)).length).toBeGreaterThan(0);
    expect(sent.filter((statement) => statement.name !== undefined)).toEqual([]);
  });
});
