import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { PrunePastRetentionUseCase } from '../../src/application/privacy/prune-past-retention.use-case';
import { PostgresRetentionStore } from '../../src/infrastructure/persistence/repositories/postgres-retention-store';
import { FixedClock } from '../fakes/fixed-clock';
import { RecordingLogger } from '../fakes/recording-logger';
import { useOpenDatabase } from '../support/persistence';
import { usingPostgresServer } from '../support/test-database';

const engine = usingPostgresServer ? 'PostgreSQL' : 'PGlite';

/** The retention job over `database`, with everything but notifications kept long. */
function pruning(database: DataSource, legalHold: boolean): PrunePastRetentionUseCase {
  const settings = { auditDays: 395, conversationDays: 395, outreachDays: 395, notificationDays: 30, legalHold };
  return new PrunePastRetentionUseCase(new PostgresRetentionStore(database), settings, new FixedClock(new Date()), new RecordingLogger());
}

describe(`notification retention on ${engine}`, () => {
  const db = useOpenDatabase();

  it('deletes notifications past their setting with what waits to be mailed of them, and nothing under a legal hold', async () => {
    const database = db.database;
    const [person] = await database.query<{ id: string }[]>(
      `INSERT INTO users (email, password_hash, role) VALUES ('notified@example.com', 'x', 'user') RETURNING id`,
    );
    for (const days of [31, 29]) {
      const [{ seq }] = await database.query<{ seq: string }[]>(
        `INSERT INTO notifications (id, recipient_id, event, subject, facts, created_at)
         VALUES ($1, $2, 'budget.threshold', '{"kind":"budget","month":"2026-12"}', $3, now() - make_interval(days => $4::int)) RETURNING seq`,
        [randomUUID(), person.id, JSON.stringify({ days }), days],
      );
      await database.query(`INSERT INTO notification_emails (user_id, seq) VALUES ($1, $2)`, [person.id, seq]);
    }
    const kept = async () => ({
      notifications: (
        await database.query<{ days: number }[]>(
          `SELECT (facts->>'days')::int AS days FROM notifications WHERE recipient_id = $1 ORDER BY 1`,
          [person.id],
        )
      ).map((row) => row.days),
      waiting: Number(
        (await database.query<{ n: string }[]>(`SELECT count(*) AS n FROM notification_emails WHERE user_id = $1`, [person.id]))[0].n,
      ),
    });
    await pruning(database, true).run();
    expect(await kept()).toEqual({ notifications: [29, 31], waiting: 2 });
    expect(await pruning(database, false).run()).toMatchObject({ notifications: 1 });
    expect(await kept()).toEqual({ notifications: [29], waiting: 1 });
  });
});
