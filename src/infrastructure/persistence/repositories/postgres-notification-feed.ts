import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { type ListedNotification, NotificationFeed } from '../../../application/notifications/ports/notification-feed.port';
import type { Page } from '../../../application/shared/page';
import { decodeCursor, encodeCursor, isSeqCursor } from '../cursor';
import { empty, selectRows, sql } from '../sql';
import { NOTIFICATION_EVENT, NOTIFICATION_FACTS, NOTIFICATION_SUBJECT } from '../tables/notifications';

const LISTED_ROW = z.object({
  seq: z.string(),
  id: z.string(),
  event: NOTIFICATION_EVENT,
  subject: NOTIFICATION_SUBJECT,
  facts: NOTIFICATION_FACTS,
  created_at: z.date(),
  to_admins: z.boolean(),
});

/** NotificationFeed on `notifications`, newest first by `seq` (notifications_recipient_seq). */
@Injectable()
export class PostgresNotificationFeed extends NotificationFeed {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async list(userId: string, admin: boolean, limit: number, cursor: string | null): Promise<Page<ListedNotification>> {
    const before = decodeCursor(cursor, isSeqCursor);
    const whose = admin ? sql`(recipient_id = ${userId} OR recipient_id IS NULL)` : sql`recipient_id = ${userId}`;
    const rows = await selectRows(
      this.dataSource,
      sql`SELECT seq::text AS seq, id, event, subject, facts, created_at, recipient_id IS NULL AS to_admins FROM notifications
          WHERE ${whose} ${before === null ? empty : sql`AND seq < ${before}::bigint`}
          ORDER BY seq DESC LIMIT ${limit + 1}`,
      LISTED_ROW,
    );
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    return {
      items: items.map((row) => ({
        id: row.id,
        event: row.event,
        subject: row.subject,
        facts: row.facts,
        createdAt: row.created_at,
        toAdmins: row.to_admins,
      })),
      nextCursor: rows.length > limit && last ? encodeCursor(last.seq) : null,
    };
  }
}
