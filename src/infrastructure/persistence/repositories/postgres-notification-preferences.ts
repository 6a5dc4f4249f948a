import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { NotificationPreferences } from '../../../application/notifications/ports/notification-preferences.port';
import type { NotificationEvent } from '../../../domain/notifications/notification';
import type { EventChoices } from '../../../domain/notifications/preferences';
import { run, selectRows, sql } from '../sql';
import { NOTIFICATION_EVENT } from '../tables/notifications';

/** NotificationPreferences on `notification_preferences` (migration 1768406400000): one row per choice a person made. */
@Injectable()
export class PostgresNotificationPreferences extends NotificationPreferences {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async emailChoices(userId: string): Promise<EventChoices> {
    const rows = await selectRows(
      this.dataSource,
      sql`SELECT event, enabled FROM notification_preferences WHERE user_id = ${userId} AND channel = 'email'`,
      // A row of an event this code no longer knows is left out, not an error.
      z.object({ event: z.string(), enabled: z.boolean() }),
    );
    return Object.fromEntries(rows.filter((row) => NOTIFICATION_EVENT.safeParse(row.event).success).map((row) => [row.event, row.enabled]));
  }

  async setEmailChoices(userId: string, choices: EventChoices, now: Date): Promise<void> {
    const entries = Object.entries(choices) as [NotificationEvent, boolean][];
    if (entries.length === 0) return;
    await run(
      this.dataSource,
      sql`INSERT INTO notification_preferences (user_id, channel, event, enabled, updated_at)
          SELECT ${userId}, 'email', c.event, c.enabled, ${now}
          FROM unnest(${entries.map(([event]) => event)}::text[], ${entries.map(([, enabled]) => enabled)}::boolean[]) AS c (event, enabled)
          ON CONFLICT (user_id, channel, event) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at`,
    );
  }
}
