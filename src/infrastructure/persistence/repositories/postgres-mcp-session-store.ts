import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { McpSessionStore, type StoredMcpSession } from '../../../application/mcp/ports/mcp-session-store.port';
import { boundedValue } from '../../../domain/shared/recorded-value';
import { jsonColumn } from '../json-column';
import { raw, selectRow, selectRows, sql } from '../sql';

const SESSION_COLUMNS = raw(`id, user_id AS "userId", initialize, subscriptions, last_seen_at AS "lastSeenAt"`);

const SESSION_ROW = z.object({
  id: z.string(),
  userId: z.string(),
  initialize: z.record(z.string(), z.unknown()),
  subscriptions: z.array(z.string()),
  lastSeenAt: z.date(),
});

const ID_ROW = z.object({ id: z.string() });

/**
 * The client's `initialize` params as a row keeps them, for replaying: its `clientInfo` only
 * as `name`, `version` and `title`, each bounded (boundedValue): the client writes them, and
 * the server reads nothing else of them.
 */
function recordedInitialize(initialize: Record<string, unknown>): Record<string, unknown> {
  const info = initialize.clientInfo;
  if (typeof info !== 'object' || info === null) return initialize;
  const { name, version, title } = info as Record<string, unknown>;
  const kept = Object.entries({ name, version, title }).filter(([, value]) => value !== undefined);
  return {
    ...initialize,
    clientInfo: Object.fromEntries(kept.map(([key, value]) => [key, typeof value === 'string' ? boundedValue(value) : value])),
  };
}

/** McpSessionStore on `mcp_sessions` (migration 1766880000000): one row a session, read by its id. */
@Injectable()
export class PostgresMcpSessionStore extends McpSessionStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  open(session: Omit<StoredMcpSession, 'subscriptions' | 'lastSeenAt'>, now: Date, perUser: number): Promise<string[]> {
    return this.dataSource.transaction(async (manager) => {
      // The person's row, locked until commit: two sessions opened at once count one after the other.
      await selectRow(manager, sql`SELECT id FROM users WHERE id = ${session.userId} FOR NO KEY UPDATE`, ID_ROW);
      await selectRow(
        manager,
        sql`INSERT INTO mcp_sessions (id, user_id, initialize, created_at, last_seen_at)
            VALUES (${session.id}, ${session.userId}, ${jsonColumn(recordedInitialize(session.initialize))}, ${now}, ${now})
            RETURNING id`,
        ID_ROW,
      );
      const ended = await selectRows(
        manager,
        sql`DELETE FROM mcp_sessions WHERE id IN (
              SELECT id FROM mcp_sessions WHERE user_id = ${session.userId}
              ORDER BY last_seen_at DESC, created_at DESC OFFSET ${perUser})
            RETURNING id`,
        ID_ROW,
      );
      return ended.map((row) => row.id);
    });
  }

  find(id: string, userId: string, activeSince: Date): Promise<StoredMcpSession | null> {
    return selectRow(
      this.dataSource,
      sql`SELECT ${SESSION_COLUMNS} FROM mcp_sessions WHERE id = ${id} AND user_id = ${userId} AND last_seen_at >= ${activeSince}`,
      SESSION_ROW,
    );
  }

  async touch(id: string, now: Date): Promise<void> {
    await selectRows(
      this.dataSource,
      sql`UPDATE mcp_sessions SET last_seen_at = ${now} WHERE id = ${id} AND last_seen_at < ${now} RETURNING id`,
      ID_ROW,
    );
  }

  async changeSubscription(id: string, uri: string, subscribed: boolean): Promise<readonly string[] | null> {
    const row = await selectRow(
      this.dataSource,
      subscribed
        ? sql`UPDATE mcp_sessions SET subscriptions = array_append(subscriptions, ${uri}::text)
              WHERE id = ${id} AND NOT (${uri}::text = ANY (subscriptions)) RETURNING subscriptions`
        : sql`UPDATE mcp_sessions SET subscriptions = array_remove(subscriptions, ${uri}::text) WHERE id = ${id} RETURNING subscriptions`,
      z.object({ subscriptions: z.array(z.string()) }),
    );
    if (row) return row.subscriptions;
    // Subscribing to what it already holds changes no row: read what it holds.
    const current = await selectRow(
      this.dataSource,
      sql`SELECT subscriptions FROM mcp_sessions WHERE id = ${id}`,
      z.object({ subscriptions: z.array(z.string()) }),
    );
    return current?.subscriptions ?? null;
  }

  async close(id: string, userId: string): Promise<boolean> {
    const ended = await selectRows(
      this.dataSource,
      sql`DELETE FROM mcp_sessions WHERE id = ${id} AND user_id = ${userId} RETURNING id`,
      ID_ROW,
    );
    return ended.length > 0;
  }

  async closeIdle(before: Date, limit: number): Promise<string[]> {
    const ended = await selectRows(
      this.dataSource,
      sql`DELETE FROM mcp_sessions WHERE id IN (
            SELECT id FROM mcp_sessions WHERE last_seen_at < ${before} ORDER BY last_seen_at LIMIT ${limit})
          RETURNING id`,
      ID_ROW,
    );
    return ended.map((row) => row.id);
  }

  async claimStream(id: string, holder: string): Promise<number | null> {
    const row = await selectRow(
      this.dataSource,
      sql`UPDATE mcp_sessions SET stream_holder = ${holder}, stream_claims = stream_claims + 1 WHERE id = ${id}
          RETURNING stream_claims::int AS claim`,
      z.object({ claim: z.number().int() }),
    );
    return row?.claim ?? null;
  }

  async streamHolders(ids: readonly string[]): Promise<ReadonlyMap<string, string | null>> {
    const rows = await selectRows(
      this.dataSource,
      sql`SELECT id, stream_holder AS holder FROM mcp_sessions WHERE id = ANY(${[...ids]}::text[])`,
      z.object({ id: z.string(), holder: z.string().nullable() }),
    );
    return new Map(rows.map((row) => [row.id, row.holder]));
  }
}
