import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { z } from 'zod';
import { type PrunedBatch, RetentionStore } from '../../../application/privacy/ports/retention-store.port';
import { pruneAuditRows, pruneHorizon } from '../tables/audit-log';
import { pruneDecisionLogs } from '../tables/decision-logs';
import { changeRows, inTransaction, run, selectRow, sql } from '../sql';

/** Names the pruning lock among the server's advisory locks (any constant). */
export const RETENTION_LOCK = 4_201_381;

const LOCKED_ROW = z.object({ locked: z.boolean() });
const POSITION_ROW = z.object({ position: z.coerce.number().int().nullable() });

/**
 * Pruning past retention (docs/decisions/0017-erasure-and-retention.md): each batch one
 * transaction that first tries the pruning lock, so two processes never prune at once and
 * neither waits for the other.
 */
@Injectable()
export class PostgresRetentionStore extends RetentionStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  pruneAudit(before: Date, batch: number): Promise<PrunedBatch | null> {
    return this.locked(async (db) => {
      // The newest checkpoint whose own row is past retention: rows linked before it may go.
      const candidate = await selectRow(
        db,
        sql`SELECT max(k.position) AS position FROM audit_checkpoints k JOIN audit_log a ON a.seq = k.seq
            WHERE a.created_at < ${before}::timestamptz`,
        POSITION_ROW,
      );
      if (candidate?.position != null) await run(db, pruneHorizon(candidate.position));
      const horizon = (await selectRow(db, sql`SELECT max(position) AS position FROM audit_pruned`, POSITION_ROW))!.position;
      if (horizon === null) return { rows: 0, horizon: null };
      const rows = await changeRows(db, pruneAuditRows(horizon, before, batch));
      const decisions = await changeRows(db, pruneDecisionLogs(before, batch));
      return { rows: Math.max(rows, decisions), horizon };
    });
  }

  pruneConversations(before: Date, batch: number): Promise<PrunedBatch | null> {
    return this.locked(async (db) => ({
      rows: await changeRows(
        db,
        sql`DELETE FROM conversations WHERE id IN (SELECT id FROM conversations WHERE updated_at < ${before}::timestamptz LIMIT ${batch})`,
      ),
    }));
  }

  pruneOutreach(before: Date, batch: number): Promise<PrunedBatch | null> {
    return this.locked(async (db) => {
      const campaigns = await changeRows(
        db,
        sql`DELETE FROM campaigns WHERE id IN (
              SELECT id FROM campaigns WHERE status = 'completed' AND updated_at < ${before}::timestamptz LIMIT ${batch})`,
      );
      let sandbox = 0;
      for (const statement of [
        sql`DELETE FROM sandbox_linkedin_actions WHERE idempotency_key IN (
              SELECT idempotency_key FROM sandbox_linkedin_actions WHERE created_at < ${before}::timestamptz LIMIT ${batch})`,
        sql`DELETE FROM sandbox_email_outbox WHERE idempotency_key IN (
              SELECT idempotency_key FROM sandbox_email_outbox WHERE created_at < ${before}::timestamptz LIMIT ${batch})`,
        sql`DELETE FROM email_deliveries WHERE idempotency_key IN (
              SELECT idempotency_key FROM email_deliveries WHERE sent_at < ${before}::timestamptz LIMIT ${batch})`,
      ])
        sandbox = Math.max(sandbox, await changeRows(db, statement));
      return { rows: Math.max(campaigns, sandbox) };
    });
  }

  pruneNotifications(before: Date, batch: number): Promise<PrunedBatch | null> {
    return this.locked(async (db) => ({
      rows: await changeRows(
        db,
        sql`DELETE FROM notifications WHERE seq IN (SELECT seq FROM notifications WHERE created_at < ${before}::timestamptz ORDER BY seq LIMIT ${batch})`,
      ),
    }));
  }

  /** Runs `work` in a transaction holding the pruning lock; null when another process holds it. */
  private locked(work: (db: EntityManager) => Promise<PrunedBatch>): Promise<PrunedBatch | null> {
    return inTransaction(this.dataSource, async (db) => {
      const { locked } = (await selectRow(db, sql`SELECT pg_try_advisory_xact_lock(${RETENTION_LOCK}) AS locked`, LOCKED_ROW))!;
      return locked ? work(db) : null;
    });
  }
}
