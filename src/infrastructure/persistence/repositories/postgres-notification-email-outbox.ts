import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import {
  type ClaimedMailbox,
  type Digest,
  NotificationEmailOutbox,
} from '../../../application/notifications/ports/notification-email-outbox.port';
import { exists, inTransaction, run, selectRow, selectRows, sql } from '../sql';
import { mailItemsOf } from './postgres-notification-email-outbox/mail-contents';

/** A notification older than this when it is first queued is not mailed (the console still lists it): after a time with email off, no flood of old news. */
const MAX_AGE_MS = 24 * 3_600_000;

const CLAIMED_ROW = z.object({ user_id: z.string(), failures: z.number() });
const RECORDED_ROW = z.object({
  pending_seqs: z.array(z.coerce.number()).nullable(),
  email: z.string(),
  role: z.string(),
});

/**
 * NotificationEmailOutbox on PostgreSQL or PGlite (migration 1768406400000). A notification is
 * queued for its recipients once, when a fan-out marks it (`email_queued`): a mark per row, as
 * rows commit out of `seq` order. The queue (`notification_emails`) is what waits per person;
 * each mailbox's `next_at` is when it may be claimed next (the quiet period, a retry's backoff,
 * or a claim's lease), and its `pending_seqs` the mail under way.
 */
@Injectable()
export class PostgresNotificationEmailOutbox extends NotificationEmailOutbox {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async look(now: Date): Promise<{ fresh: boolean; due: boolean }> {
    const row = await selectRow(
      this.dataSource,
      sql`SELECT EXISTS (SELECT 1 FROM notifications WHERE NOT email_queued) AS fresh,
                 EXISTS (SELECT 1 FROM notification_mailboxes WHERE waiting AND next_at <= ${now}) AS due`,
      z.object({ fresh: z.boolean(), due: z.boolean() }),
    );
    return row!;
  }

  async fanOut(now: Date, limit: number): Promise<number> {
    const oldest = new Date(now.getTime() - MAX_AGE_MS);
    // One statement: the unqueued rows it locks (another replica at the same time skips them)
    // are marked, queued for their recipients, and their mailboxes opened.
    const row = await selectRow(
      this.dataSource,
      sql`WITH fresh AS (SELECT seq, recipient_id, event, facts, created_at FROM notifications WHERE NOT email_queued
                         ORDER BY seq LIMIT ${limit} FOR UPDATE SKIP LOCKED),
               marked AS (UPDATE notifications n SET email_queued = true FROM fresh WHERE n.seq = fresh.seq),
               addressed AS (SELECT f.recipient_id AS user_id, f.seq, f.event, f.facts, f.created_at FROM fresh f
                             WHERE f.recipient_id IS NOT NULL
                             UNION ALL
                             SELECT u.id, f.seq, f.event, f.facts, f.created_at FROM fresh f JOIN users u ON u.role = 'admin'
                             WHERE f.recipient_id IS NULL),
               queued AS (INSERT INTO notification_emails (user_id, seq)
                          SELECT a.user_id, a.seq FROM addressed a
                          WHERE a.created_at > ${oldest}
                            AND a.user_id::text IS DISTINCT FROM a.facts ->> 'actorId'
                            AND NOT EXISTS (SELECT 1 FROM notification_preferences p
                                            WHERE p.user_id = a.user_id AND p.channel = 'email' AND p.event = a.event AND NOT p.enabled)
                          ON CONFLICT DO NOTHING
                          RETURNING user_id),
               opened AS (INSERT INTO notification_mailboxes (user_id, waiting, next_at)
                          SELECT DISTINCT user_id, true, ${now}::timestamptz FROM queued ORDER BY user_id
                          ON CONFLICT (user_id) DO UPDATE SET waiting = true)
          SELECT count(*)::int AS n FROM fresh`,
      z.object({ n: z.number() }),
    );
    return row!.n;
  }

  async claim(now: Date, leaseMs: number, limit: number): Promise<ClaimedMailbox[]> {
    const token = randomUUID();
    const rows = await selectRows(
      this.dataSource,
      sql`UPDATE notification_mailboxes m SET next_at = ${new Date(now.getTime() + leaseMs)}, lease_token = ${token}
          WHERE m.user_id IN (SELECT user_id FROM notification_mailboxes WHERE waiting AND next_at <= ${now}
                              ORDER BY next_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          RETURNING m.user_id, m.failures`,
      CLAIMED_ROW,
    );
    return rows.map((row) => ({ userId: row.user_id, token, failures: row.failures }));
  }

  async digest(box: ClaimedMailbox, maxItems: number): Promise<Digest | null> {
    // Recorded before anything is sent: a retry, by this replica or another, sends these again.
    const recorded = await selectRow(
      this.dataSource,
      sql`UPDATE notification_mailboxes m SET pending_seqs = coalesce(m.pending_seqs,
            (SELECT array_agg(s.seq ORDER BY s.seq) FROM (SELECT q.seq FROM notification_emails q WHERE q.user_id = m.user_id
                                                          ORDER BY q.seq LIMIT ${maxItems}) s))
          FROM users u
          WHERE m.user_id = ${box.userId} AND m.lease_token = ${box.token} AND u.id = m.user_id
          RETURNING m.pending_seqs, u.email, u.role`,
      RECORDED_ROW,
    );
    if (!recorded) return null;
    const seqs = recorded.pending_seqs ?? [];
    const items = seqs.length === 0 ? [] : await mailItemsOf(this.dataSource, box.userId, seqs);
    return { box, to: recorded.email, firstSeq: seqs[0] ?? 0, lastSeq: seqs[seqs.length - 1] ?? 0, items };
  }

  async settle(digest: Digest, now: Date, sentAt: Date | null, intervalMs: number): Promise<void> {
    const { userId, token } = digest.box;
    await inTransaction(this.dataSource, async (manager) => {
      // The mailbox's row first: a fan-out queueing for this person meanwhile either committed
      // before (and `waiting` below sees its rows) or waits, and sets `waiting` after.
      const held = await exists(
        manager,
        sql`SELECT 1 FROM notification_mailboxes WHERE user_id = ${userId} AND lease_token = ${token} FOR UPDATE`,
      );
      if (!held) return;
      await run(
        manager,
        sql`DELETE FROM notification_emails q USING notification_mailboxes m
            WHERE m.user_id = ${userId} AND q.user_id = m.user_id AND q.seq = ANY(m.pending_seqs)`,
      );
      const interval = sql`(${intervalMs}::double precision * interval '1 millisecond')`;
      await run(
        manager,
        sql`UPDATE notification_mailboxes SET pending_seqs = NULL, lease_token = NULL, failures = 0,
              last_seq = CASE WHEN ${sentAt}::timestamptz IS NULL THEN last_seq ELSE ${digest.lastSeq}::bigint END,
              last_sent_at = coalesce(${sentAt}::timestamptz, last_sent_at),
              next_at = coalesce(${sentAt}::timestamptz, last_sent_at, ${now}::timestamptz - ${interval}) + ${interval},
              waiting = EXISTS (SELECT 1 FROM notification_emails WHERE user_id = ${userId})
            WHERE user_id = ${userId}`,
      );
    });
  }

  async retryLater(box: ClaimedMailbox, retryAt: Date): Promise<void> {
    await run(
      this.dataSource,
      sql`UPDATE notification_mailboxes SET next_at = ${retryAt}, lease_token = NULL, failures = failures + 1
          WHERE user_id = ${box.userId} AND lease_token = ${box.token}`,
    );
  }
}
