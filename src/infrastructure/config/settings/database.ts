import { resolve } from 'node:path';
import { z } from 'zod';
import { flag, postgresUrl, wholeNumber } from './rules';
import { type Setting } from './setting';

/** The Database section of docs/configuration.md, in its order. */
export const DATABASE_SETTINGS = {
  DATABASE_URL: {
    section: 'Database',
    ...postgresUrl(),
    defaultText: 'unset: embedded PGlite',
    doc: 'a PostgreSQL server (13 or later). Required for more than one process ([0001](decisions/0001-pglite-and-postgresql.md))',
  },
  BRIDLE_DATA_DIR: {
    section: 'Database',
    schema: z.string().transform((path) => resolve(path)),
    allowed: 'a path',
    default: './data',
    defaultText: '`./data` (made absolute)',
    doc: 'holds the embedded database (`pgdata/`), the pid of the process holding it (`bridle.lock`; on Linux the lock itself is a socket, see docs/operations.md) and, when `JWT_SECRET` or `AUDIT_SIGNING_KEY` is unset, the generated secret (`jwt-secret`) or key (`audit-signing-key.pem`). They are written there even with `DATABASE_URL`',
  },
  // Checked on the embedded database too, so a bad value fails before the move to a server.
  DATABASE_POOL_MAX: {
    section: 'Database',
    // Two connections at least: the migration lock holds one while the migrations run on another.
    ...wholeNumber(2, 1_000),
    default: '10',
    doc: "connections each process (replica, worker, operator's command) may hold to the PostgreSQL server. Replicas × this, plus workers × this, must stay under the server's `max_connections` with room to spare ([sizing](operations.md#sizing-the-connection-pool)). At least 2: the migration lock holds one while the migrations run on another. The embedded database always has one",
  },
  DATABASE_LISTEN_URL: {
    section: 'Database',
    ...postgresUrl(),
    defaultText: '`DATABASE_URL`',
    doc: 'where each server process keeps its one `LISTEN` connection (the fleet bus: [0011](decisions/0011-mcp-sessions-in-the-database.md)). Point it past a pooler in transaction mode, which cannot hold a `LISTEN`: at the server itself',
  },
  DATABASE_PREPARED_STATEMENTS: {
    section: 'Database',
    ...flag(),
    default: 'true',
    doc: "`true`: each statement text is prepared under a name once per connection, so the server parses and plans it once. `false`: every statement is sent unnamed (its values still as parameters), for a pooler in transaction mode that cannot keep named statements (PgBouncer before 1.21). Costs a parse and a plan per call: twice PostgreSQL's CPU a chat turn in a benchmark ([poolers](operations.md#growing-past-one-postgresql))",
  },
} as const satisfies Record<string, Setting>;
