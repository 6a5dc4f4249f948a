import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import {
  type NewPolicyVersion,
  type PolicyVersionSummary,
  PolicyStore,
  type StoredPolicyVersion,
} from '../../../application/policy/ports/policy-store.port';
import type { Page } from '../../../application/shared/page';
import { decodeCursor, encodeCursor } from '../cursor';
import { empty, inTransaction, run, selectRow, selectRows, sql } from '../sql';
import { enqueueNotification } from '../tables/notifications';
import {
  POLICY_VERSION_COLUMNS,
  POLICY_VERSION_ROW,
  POLICY_VERSION_SUMMARY_COLUMNS,
  POLICY_VERSION_SUMMARY_ROW,
} from '../tables/policy-versions';

/** Names the policy's save lock among the server's advisory locks (any constant no other lock uses). */
export const POLICY_SAVE_LOCK = 4_201_380;

/** A version number as a cursor (encodeCursor): the last version of the previous page. */
function isVersionCursor(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 2_147_483_647;
}

/** PolicyStore on `policy_versions` (migration 1767312000000), on a PostgreSQL server or on PGlite alike. */
@Injectable()
export class PostgresPolicyStore extends PolicyStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  latest(): Promise<StoredPolicyVersion | null> {
    return selectRow(
      this.dataSource,
      sql`SELECT ${POLICY_VERSION_COLUMNS} FROM policy_versions ORDER BY version DESC LIMIT 1`,
      POLICY_VERSION_ROW,
    );
  }

  async latestVersion(): Promise<number> {
    const row = await selectRow(
      this.dataSource,
      sql`SELECT coalesce(max(version), 0) AS version FROM policy_versions`,
      z.object({ version: z.number().int().nonnegative() }),
    );
    return row?.version ?? 0;
  }

  version(version: number): Promise<StoredPolicyVersion | null> {
    return selectRow(
      this.dataSource,
      sql`SELECT ${POLICY_VERSION_COLUMNS} FROM policy_versions WHERE version = ${version}`,
      POLICY_VERSION_ROW,
    );
  }

  async list(limit: number, cursor: string | null): Promise<Page<PolicyVersionSummary>> {
    const before = decodeCursor(cursor, isVersionCursor);
    // One more than the page holds: whether it is there says whether there is a next page.
    const rows = await selectRows(
      this.dataSource,
      sql`SELECT ${POLICY_VERSION_SUMMARY_COLUMNS} FROM policy_versions
          ${before === null ? empty : sql`WHERE version < ${before}`}
          ORDER BY version DESC LIMIT ${limit + 1}`,
      POLICY_VERSION_SUMMARY_ROW,
    );
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    return { items, nextCursor: rows.length > limit && last ? encodeCursor(last.version) : null };
  }

  /**
   * The next number is max + 1, taken under a transaction-level advisory lock: racing saves
   * queue on the lock and each numbers its row after the one before has committed, so no two
   * get the same number and none is lost or skipped. The INSERT is a statement of its own
   * after the lock, so that its snapshot (READ COMMITTED takes one per statement) sees the
   * row the previous holder committed. A sequence would leave gaps where a save failed, and a
   * retry on the primary key's unique violation would need a loop and a savepoint; saves are
   * rare (an admin's edit), so waiting a moment for the lock costs nothing. PGlite has one
   * session, where the lock is always free and saves run one after the other anyway.
   */
  async save(version: NewPolicyVersion): Promise<StoredPolicyVersion> {
    return inTransaction(this.dataSource, async (manager) => {
      await run(manager, sql`SELECT pg_advisory_xact_lock(${POLICY_SAVE_LOCK})`);
      const stored = await selectRow(
        manager,
        sql`INSERT INTO policy_versions (version, document, people, author_id, author_email, reason)
            SELECT coalesce(max(version), 0) + 1, ${JSON.stringify(version.document)}::jsonb, ${JSON.stringify(version.people)}::jsonb,
              ${version.authorId}, ${version.authorEmail}, ${version.reason}
            FROM policy_versions
            RETURNING ${POLICY_VERSION_COLUMNS}`,
        POLICY_VERSION_ROW,
      );
      // Every admin but its author is told (policy.stored), in the same transaction.
      await enqueueNotification(manager, {
        recipientId: null,
        event: 'policy.stored',
        subject: { kind: 'policy', version: stored!.version },
        facts: { version: stored!.version, rules: stored!.document.rules.length, actorId: stored!.authorId },
        at: stored!.createdAt,
      });
      return stored!;
    });
  }
}
